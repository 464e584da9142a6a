#include "security/scram.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace spool::security {
namespace {

const EVP_MD* md(ScramMechanism m) { return m == ScramMechanism::kSha512 ? EVP_sha512() : EVP_sha256(); }

}  // namespace

std::string_view scram_name(ScramMechanism m) {
  return m == ScramMechanism::kSha512 ? "SCRAM-SHA-512" : "SCRAM-SHA-256";
}

std::optional<ScramMechanism> scram_mechanism_named(std::string_view name) {
  if (name == "SCRAM-SHA-256") return ScramMechanism::kSha256;
  if (name == "SCRAM-SHA-512") return ScramMechanism::kSha512;
  return std::nullopt;
}

std::optional<ScramMechanism> scram_mechanism_of_type(int8_t type) {
  if (type == 1) return ScramMechanism::kSha256;
  if (type == 2) return ScramMechanism::kSha512;
  return std::nullopt;
}

size_t scram_digest_size(ScramMechanism m) { return m == ScramMechanism::kSha512 ? 64 : 32; }

Bytes scram_salted_password(ScramMechanism m, std::string_view password, const Bytes& salt, int32_t iterations) {
  Bytes out(scram_digest_size(m));
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), salt.data(), static_cast<int>(salt.size()),
                        iterations, md(m), static_cast<int>(out.size()), out.data()) != 1) {
    throw std::runtime_error("PKCS5_PBKDF2_HMAC failed");
  }
  return out;
}

Bytes scram_hmac(ScramMechanism m, const Bytes& key, std::string_view data) {
  Bytes out(EVP_MAX_MD_SIZE);
  unsigned int n = 0;
  if (HMAC(md(m), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
           data.size(), out.data(), &n) == nullptr) {
    throw std::runtime_error("HMAC failed");
  }
  out.resize(n);
  return out;
}

Bytes scram_hash(ScramMechanism m, const Bytes& data) {
  Bytes out(EVP_MAX_MD_SIZE);
  unsigned int n = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &n, md(m), nullptr) != 1) {
    throw std::runtime_error("EVP_Digest failed");
  }
  out.resize(n);
  return out;
}

ScramCredential scram_credential(ScramMechanism m, Bytes salt, const Bytes& salted_password, int32_t iterations) {
  ScramCredential c;
  c.salt = std::move(salt);
  c.stored_key = scram_hash(m, scram_hmac(m, salted_password, "Client Key"));
  c.server_key = scram_hmac(m, salted_password, "Server Key");
  c.iterations = iterations;
  return c;
}

std::string format_scram_credential(const ScramCredential& c) {
  return "salt=" + base64_encode(c.salt) + ",stored_key=" + base64_encode(c.stored_key) +
         ",server_key=" + base64_encode(c.server_key) + ",iterations=" + std::to_string(c.iterations);
}

Result<ScramCredential> parse_scram_credential(std::string_view text) {
  ScramCredential c;
  bool salt = false, stored = false, server = false, iterations = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) return Status::error("SCRAM credential: an entry without '='");
    std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    auto bytes = [&](Bytes& out, bool& seen) -> bool {
      auto b = base64_decode(value);
      if (!b || b->empty() || seen) return false;
      out = std::move(*b);
      seen = true;
      return true;
    };
    if (key == "salt") {
      if (!bytes(c.salt, salt)) return Status::error("SCRAM credential: bad or repeated salt");
    } else if (key == "stored_key") {
      if (!bytes(c.stored_key, stored)) return Status::error("SCRAM credential: bad or repeated stored_key");
    } else if (key == "server_key") {
      if (!bytes(c.server_key, server)) return Status::error("SCRAM credential: bad or repeated server_key");
    } else if (key == "iterations") {
      int64_t n = 0;
      if (value.empty() || value.size() > 9 || iterations) return Status::error("SCRAM credential: bad iterations");
      for (char ch : value) {
        if (ch < '0' || ch > '9') return Status::error("SCRAM credential: bad iterations");
        n = n * 10 + (ch - '0');
      }
      c.iterations = static_cast<int32_t>(n);
      iterations = true;
    }  // other keys (Kafka may add some) are ignored
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (!salt || !stored || !server || !iterations || c.iterations <= 0) {
    return Status::error("SCRAM credential: salt, stored_key, server_key and iterations are all required");
  }
  return c;
}

std::string base64_encode(const Bytes& data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data.data(), static_cast<int>(data.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<Bytes> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
              (c == '=' && i + 2 >= text.size());
    if (!ok) return std::nullopt;
  }
  if (text.size() >= 2 && text[text.size() - 2] == '=' && text.back() != '=') return std::nullopt;
  Bytes out(text.size() / 4 * 3 + 1);
  int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts padding as zero bytes: take them off.
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  // Canonical only: the unused bits of the last symbol must be zero.
  if (base64_encode(out) != text) return std::nullopt;
  return out;
}

Bytes random_bytes(size_t n) {
  Bytes out(n);
  if (n > 0 && RAND_bytes(out.data(), static_cast<int>(n)) != 1) throw std::runtime_error("RAND_bytes failed");
  return out;
}

}  // namespace spool::security
