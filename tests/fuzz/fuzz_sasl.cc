// Fuzzes what an unauthenticated client controls on a SASL listener, and
// the text forms the broker reads back (security/): the first input byte
// picks the target (mod 5), the rest is the input.
//   0  a SASL/PLAIN response (PlainServer)
//   1  a SCRAM-SHA-256 exchange: the input split at its first 0xff byte
//      into client-first and client-final (ScramServer, user "user")
//   2  the same as a SCRAM-SHA-512 exchange
//   3  sasl.jaas.config text (parse_jaas_config)
//   4  a stored SCRAM credential (parse_scram_credential), and base64
// Nothing may crash; an exchange may only succeed for the configured user
// with the right password (never here: the inputs cannot compute a proof
// except by chance), and a parsed credential must survive its writer.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "security/jaas.h"
#include "security/plain_server.h"
#include "security/scram.h"
#include "security/scram_server.h"

namespace {

using namespace spool;
using namespace spool::security;

std::span<const uint8_t> span_of(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

void plain(std::string_view in) {
  static auto users = std::make_shared<PlainUsers>(PlainUsers{{"user", "pencil"}});
  PlainServer s(users);
  SaslStep r = s.evaluate(span_of(in));
  if (r.outcome == SaslStep::Outcome::kDone && (r.user != "user" || in.find("pencil") == std::string_view::npos))
    __builtin_trap();
}

void scram(ScramMechanism m, std::string_view in) {
  static const Bytes salt = {1, 2, 3, 4};
  static const ScramCredential creds[2] = {
      scram_credential(ScramMechanism::kSha256, salt, scram_salted_password(ScramMechanism::kSha256, "pencil", salt, 4096), 4096),
      scram_credential(ScramMechanism::kSha512, salt, scram_salted_password(ScramMechanism::kSha512, "pencil", salt, 4096), 4096)};
  ScramServer s(m, [](ScramMechanism mech, const std::string& user) -> std::optional<ScramCredential> {
    if (user != "user") return std::nullopt;
    return creds[mech == ScramMechanism::kSha512 ? 1 : 0];
  }, "fixed-server-nonce");
  const size_t cut = in.find('\xff');
  SaslStep first = s.evaluate(span_of(in.substr(0, cut)));
  if (first.outcome == SaslStep::Outcome::kDone) __builtin_trap();  // SCRAM never ends at the first message
  if (first.outcome != SaslStep::Outcome::kContinue || cut == std::string_view::npos) return;
  SaslStep last = s.evaluate(span_of(in.substr(cut + 1)));
  if (last.outcome == SaslStep::Outcome::kContinue) __builtin_trap();  // two messages, then over
}

void jaas(std::string_view in) {
  auto m = parse_jaas_config(in);
  if (m && (m->class_name.empty() || m->flag.empty())) __builtin_trap();
}

void credential(std::string_view in) {
  auto c = parse_scram_credential(in);
  if (c) {
    auto again = parse_scram_credential(format_scram_credential(*c));
    if (!again || !(*again == *c)) __builtin_trap();
  }
  if (auto b = base64_decode(in); b && base64_encode(*b) != in) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0: plain(in); break;
    case 1: scram(ScramMechanism::kSha256, in); break;
    case 2: scram(ScramMechanism::kSha512, in); break;
    case 3: jaas(in); break;
    case 4: credential(in); break;
  }
  return 0;
}
