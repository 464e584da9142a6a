// SCRAM-SHA-256 / SCRAM-SHA-512 server exchange (RFC 5802 section 5, as
// Kafka's ScramSaslServer serves it):
//   client-first  "n,[a=<authzid>],n=<user>,r=<client nonce>[,<ext>=<v>...]"
//   server-first  "r=<client nonce><server nonce>,s=<b64 salt>,i=<iterations>"
//   client-final  "c=<b64 gs2 header>,r=<nonce>[,<ext>...],p=<b64 proof>"
//   server-final  "v=<b64 server signature>"
// Only the "n" gs2 flag (no channel binding) is accepted, an authorization
// id must equal the user, and the tokenauth extension (delegation tokens)
// is refused. The final nonce must end with the server-first one (Kafka's
// check: librdkafka 2.0 repeats its client nonce in front). An unknown
// user, a wrong proof, a changed nonce or channel
// binding all fail with one message that does not tell them apart (as
// Kafka: no user enumeration). The credential is looked up once, at the
// first message. Not thread-safe (one exchange, one connection).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "security/sasl_server.h"
#include "security/scram.h"

namespace spool::security {

using ScramLookup = std::function<std::optional<ScramCredential>(ScramMechanism, const std::string& user)>;

class ScramServer : public SaslServer {
 public:
  // `server_nonce`: the random part appended to the client's nonce (tests
  // pass a fixed one; empty = 24 random bytes, base64).
  ScramServer(ScramMechanism mechanism, ScramLookup lookup, std::string server_nonce = {});
  std::string_view mechanism() const override { return scram_name(mechanism_); }
  SaslStep evaluate(std::span<const uint8_t> response) override;

 private:
  SaslStep first(std::string_view msg);
  SaslStep final(std::string_view msg);
  SaslStep invalid_credentials() const;

  ScramMechanism mechanism_;
  ScramLookup lookup_;
  std::string server_nonce_;
  enum class State : uint8_t { kFirst, kFinal, kOver } state_ = State::kFirst;
  std::string gs2_header_;         // "n,," or "n,a=<authzid>,"
  std::string client_first_bare_;  // "n=<user>,r=<nonce>..."
  std::string server_first_;
  std::string nonce_;              // client nonce + server nonce
  std::string user_;
  std::optional<ScramCredential> credential_;
};

}  // namespace spool::security
