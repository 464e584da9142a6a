#include "security/scram_server.h"

#include <openssl/crypto.h>

#include <vector>

namespace spool::security {
namespace {

// Printable ASCII without ',' (RFC 5802 "printable").
bool printable(std::string_view s) {
  for (char c : s) {
    if (c < 0x21 || c > 0x7e || c == ',') return false;
  }
  return true;
}

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  for (;;) {
    size_t comma = s.find(',', pos);
    out.push_back(s.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    if (comma == std::string_view::npos) return out;
    pos = comma + 1;
  }
}

// saslname: "=2C" is ',' and "=3D" is '='; any other '=' is invalid.
std::optional<std::string> decode_saslname(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '=') {
      out += s[i];
    } else if (s.substr(i, 3) == "=2C") {
      out += ',';
      i += 2;
    } else if (s.substr(i, 3) == "=3D") {
      out += '=';
      i += 2;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace

ScramServer::ScramServer(ScramMechanism mechanism, ScramLookup lookup, std::string server_nonce)
    : mechanism_(mechanism), lookup_(std::move(lookup)), server_nonce_(std::move(server_nonce)) {
  if (server_nonce_.empty()) server_nonce_ = base64_encode(random_bytes(24));
}

SaslStep ScramServer::evaluate(std::span<const uint8_t> response) {
  std::string_view msg(reinterpret_cast<const char*>(response.data()), response.size());
  switch (state_) {
    case State::kFirst: {
      SaslStep s = first(msg);
      state_ = s.outcome == SaslStep::Outcome::kContinue ? State::kFinal : State::kOver;
      return s;
    }
    case State::kFinal:
      state_ = State::kOver;
      return final(msg);
    case State::kOver:
      break;
  }
  return SaslStep::failed("SCRAM exchange already over");
}

SaslStep ScramServer::invalid_credentials() const {
  return SaslStep::failed("Authentication failed during authentication due to invalid credentials with SASL mechanism " +
                          std::string(scram_name(mechanism_)));
}

SaslStep ScramServer::first(std::string_view msg) {
  const auto bad = [] { return SaslStep::failed("Invalid SCRAM client first message"); };
  // gs2-header: "n," [ "a=" authzid ] ","
  if (!msg.starts_with("n,")) {
    return msg.starts_with("y,") || msg.starts_with("p=")
               ? SaslStep::failed("SCRAM channel binding is not supported")
               : bad();
  }
  size_t second = msg.find(',', 2);
  if (second == std::string_view::npos) return bad();
  std::string_view authz = msg.substr(2, second - 2);
  std::optional<std::string> authzid;
  if (!authz.empty()) {
    if (!authz.starts_with("a=")) return bad();
    authzid = decode_saslname(authz.substr(2));
    if (!authzid) return bad();
  }
  gs2_header_ = std::string(msg.substr(0, second + 1));
  client_first_bare_ = std::string(msg.substr(second + 1));
  std::vector<std::string_view> parts = split(client_first_bare_);
  if (parts.size() < 2 || !parts[0].starts_with("n=") || !parts[1].starts_with("r=")) return bad();
  auto user = decode_saslname(parts[0].substr(2));
  std::string_view client_nonce = parts[1].substr(2);
  if (!user || user->empty() || client_nonce.empty() || !printable(client_nonce)) return bad();
  for (size_t i = 2; i < parts.size(); ++i) {
    size_t eq = parts[i].find('=');
    if (eq == std::string_view::npos || eq == 0) return bad();
    if (parts[i].substr(0, eq) == "tokenauth" && parts[i].substr(eq + 1) == "true") {
      return SaslStep::failed("Authentication failed: delegation tokens are not supported");
    }
  }
  if (authzid && *authzid != *user) {
    return SaslStep::failed(
        "Authentication failed: Client requested an authorization id that is different from username");
  }
  user_ = std::move(*user);
  credential_ = lookup_ ? lookup_(mechanism_, user_) : std::nullopt;
  if (!credential_) return invalid_credentials();
  nonce_ = std::string(client_nonce) + server_nonce_;
  server_first_ = "r=" + nonce_ + ",s=" + base64_encode(credential_->salt) + ",i=" +
                  std::to_string(credential_->iterations);
  return SaslStep::next(Bytes(server_first_.begin(), server_first_.end()));
}

SaslStep ScramServer::final(std::string_view msg) {
  // "c=...,r=...[,ext...],p=..." : the proof is last.
  size_t p = msg.rfind(",p=");
  if (p == std::string_view::npos) return SaslStep::failed("Invalid SCRAM client final message");
  std::string_view without_proof = msg.substr(0, p);
  std::vector<std::string_view> parts = split(without_proof);
  if (parts.size() < 2 || !parts[0].starts_with("c=") || !parts[1].starts_with("r=")) {
    return SaslStep::failed("Invalid SCRAM client final message");
  }
  auto channel = base64_decode(parts[0].substr(2));
  auto proof = base64_decode(msg.substr(p + 3));
  // The nonce must end with the server-first one (Kafka's check, not
  // equality: librdkafka up to 2.x-early sends its client nonce twice).
  if (!channel || std::string(channel->begin(), channel->end()) != gs2_header_ || !parts[1].substr(2).ends_with(nonce_) ||
      !proof || proof->size() != scram_digest_size(mechanism_)) {
    return invalid_credentials();
  }
  const std::string auth_message = client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  Bytes client_signature = scram_hmac(mechanism_, credential_->stored_key, auth_message);
  Bytes client_key(proof->size());
  for (size_t i = 0; i < client_key.size(); ++i) client_key[i] = (*proof)[i] ^ client_signature[i];
  Bytes stored = scram_hash(mechanism_, client_key);
  if (stored.size() != credential_->stored_key.size() ||
      CRYPTO_memcmp(stored.data(), credential_->stored_key.data(), stored.size()) != 0) {
    return invalid_credentials();
  }
  const std::string server_final =
      "v=" + base64_encode(scram_hmac(mechanism_, credential_->server_key, auth_message));
  return SaslStep::done(user_, Bytes(server_final.begin(), server_final.end()));
}

}  // namespace spool::security
