// SCRAM (RFC 5802, RFC 7677) as Kafka uses it: the mechanisms
// SCRAM-SHA-256 and SCRAM-SHA-512 (wire type ids 1 and 2 in
// Describe/AlterUserScramCredentials), the stored credential (salt,
// StoredKey, ServerKey, iterations; the password itself is never kept), its
// text form in /config/users/<user> ("salt=<b64>,stored_key=<b64>,
// server_key=<b64>,iterations=<n>", Kafka's ScramCredentialUtils), and the
// key derivations. Pure functions over OpenSSL's libcrypto; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/bytes.h"
#include "util/status.h"

namespace spool::security {

enum class ScramMechanism : int8_t { kSha256 = 1, kSha512 = 2 };

inline constexpr int32_t kScramMinIterations = 4096;   // Kafka's ScramMechanism.minIterations
inline constexpr int32_t kScramMaxIterations = 16384;  // Kafka's limit on AlterUserScramCredentials

std::string_view scram_name(ScramMechanism m);  // "SCRAM-SHA-256" | "SCRAM-SHA-512"
std::optional<ScramMechanism> scram_mechanism_named(std::string_view name);
std::optional<ScramMechanism> scram_mechanism_of_type(int8_t type);
size_t scram_digest_size(ScramMechanism m);  // 32 | 64

struct ScramCredential {
  Bytes salt;
  Bytes stored_key;  // H(HMAC(SaltedPassword, "Client Key"))
  Bytes server_key;  // HMAC(SaltedPassword, "Server Key")
  int32_t iterations = 0;
  bool operator==(const ScramCredential&) const = default;
};

// Hi(password, salt, i): PBKDF2-HMAC with the mechanism's hash.
Bytes scram_salted_password(ScramMechanism m, std::string_view password, const Bytes& salt, int32_t iterations);
// What the broker keeps from a client's SaltedPassword (AlterUserScramCredentials).
ScramCredential scram_credential(ScramMechanism m, Bytes salt, const Bytes& salted_password, int32_t iterations);

Bytes scram_hmac(ScramMechanism m, const Bytes& key, std::string_view data);
Bytes scram_hash(ScramMechanism m, const Bytes& data);

std::string format_scram_credential(const ScramCredential& c);
// Errors never echo the value (it is secret material).
Result<ScramCredential> parse_scram_credential(std::string_view text);

// Standard base64 with padding; decode is strict (nullopt on anything but
// the canonical encoding of some bytes).
std::string base64_encode(const Bytes& data);
std::optional<Bytes> base64_decode(std::string_view text);
// Cryptographically random bytes (RAND_bytes).
Bytes random_bytes(size_t n);

}  // namespace spool::security
