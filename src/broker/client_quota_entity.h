// Client-quota entities in Kafka's ZooKeeper layout: a user, a client id,
// or a user with a client id, each part either a name or the default
// ("<default>"). Names are stored sanitized (Kafka's Sanitizer: URL encoding
// with '*' as %2A and ' ' as %20), so any principal or client id is one path
// component:
//   users/<u>                 /config/users/<u>
//   clients/<c>               /config/clients/<c>
//   users/<u>/clients/<c>     /config/users/<u>/clients/<c>
// The same text is the entity_path of a config change notification.
//
// Also the quota keys Kafka defines (producer_byte_rate, consumer_byte_rate,
// request_percentage, controller_mutation_rate) and the ones Spool enforces.
// Pure functions; no failure beyond the nullopt/Status results.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/status.h"

namespace spool::broker {

inline constexpr std::string_view kDefaultEntityName = "<default>";

// Kafka's Sanitizer.sanitize / desanitize (nullopt: not valid percent-encoding).
std::string sanitize_entity_name(std::string_view name);
std::optional<std::string> desanitize_entity_name(std::string_view sanitized);

struct QuotaEntityPart {
  bool present = false;
  std::optional<std::string> name{};  // present && !name: the default
  bool operator==(const QuotaEntityPart&) const = default;
};

struct QuotaEntity {
  QuotaEntityPart user{};
  QuotaEntityPart client_id{};

  // "users/<u>", "clients/<c>" or "users/<u>/clients/<c>" (sanitized names).
  std::string path() const;
  // The inverse of path(); nullopt for anything else (another entity type,
  // an empty or undecodable name).
  static std::optional<QuotaEntity> from_path(std::string_view path);
  bool operator==(const QuotaEntity&) const = default;
};

// The quota kinds a client can hold, indexes into per-kind arrays.
enum class QuotaKind { kProduce = 0, kFetch = 1, kRequest = 2 };
inline constexpr int kQuotaKinds = 3;

// "producer_byte_rate" -> kProduce, "consumer_byte_rate" -> kFetch,
// "request_percentage" -> kRequest; nullopt for any other key.
std::optional<QuotaKind> quota_kind_of_key(std::string_view key);
std::string_view quota_key(QuotaKind kind);

// A stored value ("1048576", "50.0") as a number; nullopt if it is not one.
std::optional<double> parse_quota_value(const std::string& text);

// Kafka's validation of one quota value for AlterClientQuotas: the key is a
// client quota key (INVALID_REQUEST otherwise), a byte rate is a whole
// number, and the value is above 0 (Spool's: a zero or negative quota would
// throttle forever). controller_mutation_rate is a Kafka key Spool does not
// enforce, so it is refused rather than stored and ignored.
Status validate_quota_value(std::string_view key, double value);

}  // namespace spool::broker
