// Kafka's SecurityProtocol ids as UpdateMetadata carries them (Endpoints[].
// SecurityProtocol, v1+): PLAINTEXT 0, SSL 1, SASL_PLAINTEXT 2, SASL_SSL 3.
// Pure functions, no state; unknown names/ids give nullopt (the caller
// reports the error), never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace spool::cluster {

inline std::optional<int16_t> security_protocol_id(std::string_view name) {
  if (name == "PLAINTEXT") return int16_t{0};
  if (name == "SSL") return int16_t{1};
  if (name == "SASL_PLAINTEXT") return int16_t{2};
  if (name == "SASL_SSL") return int16_t{3};
  return std::nullopt;
}

inline std::optional<std::string> security_protocol_name(int16_t id) {
  switch (id) {
    case 0: return std::string("PLAINTEXT");
    case 1: return std::string("SSL");
    case 2: return std::string("SASL_PLAINTEXT");
    case 3: return std::string("SASL_SSL");
    default: return std::nullopt;
  }
}

}  // namespace spool::cluster
