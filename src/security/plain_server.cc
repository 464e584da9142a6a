#include "security/plain_server.h"

#include <vector>

#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace spool::security {
namespace {

// Compares digests in constant time: neither how much of a guess was right
// nor the password's length shows in the time taken.
bool same_secret(std::string_view a, std::string_view b) {
  unsigned char da[SHA256_DIGEST_LENGTH], db[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(a.data()), a.size(), da);
  SHA256(reinterpret_cast<const unsigned char*>(b.data()), b.size(), db);
  return CRYPTO_memcmp(da, db, sizeof da) == 0;
}

}  // namespace

SaslStep PlainServer::evaluate(std::span<const uint8_t> response) {
  std::string_view msg(reinterpret_cast<const char*>(response.data()), response.size());
  std::vector<std::string_view> tokens;
  size_t start = 0;
  for (size_t i = 0; i <= msg.size(); ++i) {
    if (i == msg.size() || msg[i] == '\0') {
      tokens.push_back(msg.substr(start, i - start));
      start = i + 1;
    }
  }
  if (tokens.size() != 3) {
    return SaslStep::failed("Invalid SASL/PLAIN response: expected 3 tokens, got " +
                            std::to_string(tokens.size()));
  }
  const std::string_view authzid = tokens[0], user = tokens[1], password = tokens[2];
  if (user.empty()) return SaslStep::failed("Authentication failed: username not specified");
  if (password.empty()) return SaslStep::failed("Authentication failed: password not specified");
  if (!authzid.empty() && authzid != user) {
    return SaslStep::failed("Authentication failed: Client requested an authorization id that is different from username");
  }
  auto it = users_ ? users_->find(user) : PlainUsers::const_iterator();
  if (!users_ || it == users_->end() || !same_secret(password, it->second)) {
    return SaslStep::failed("Authentication failed: Invalid username or password");
  }
  return SaslStep::done(std::string(user));
}

}  // namespace spool::security
