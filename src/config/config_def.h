// Config key definitions: the typed schema behind broker and topic configs.
//
// A KeyDef names one key, its Kafka type, its default (as Kafka writes it,
// nullptr = Kafka's null) and a Check (range / allowed values). The tables
// are static and immutable, so lookups are thread-safe. parse_value() turns
// a raw string into its normalized form or an error that names the key, the
// value and what is allowed; it never throws.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace spool::config {

enum class ConfigType : uint8_t { kBoolean, kShort, kInt, kLong, kDouble, kString, kList, kClass, kPassword };

std::string_view type_name(ConfigType t);

enum class CheckKind : uint8_t {
  kNone,
  kRange,        // integer types: lo <= v <= hi
  kDoubleRange,  // double: dlo <= v <= dhi
  kOneOf,        // value is one of choices ("a|b|c"); case-sensitive like Kafka's ValidString
  kOneOfNoCase,  // same, ignoring ASCII case
  kListOf,       // every list item is one of choices
  kNonEmpty,     // string must not be empty
  kKafkaVersion, // a Kafka release version (config/kafka_version.h), e.g. "2.7-IV1"
  kThrottledReplicas,  // "*" or "PartitionId:BrokerId" items (config/throttled_replicas.h)
  kHostCounts,         // "host:count" items (config/host_counts.h)
};

struct Check {
  CheckKind kind = CheckKind::kNone;
  int64_t lo = std::numeric_limits<int64_t>::min();
  int64_t hi = std::numeric_limits<int64_t>::max();
  double dlo = 0;
  double dhi = 0;
  const char* choices = nullptr;
};

constexpr Check no_check() { return {}; }
constexpr Check at_least(int64_t lo) { return {CheckKind::kRange, lo, std::numeric_limits<int64_t>::max(), 0, 0, nullptr}; }
constexpr Check between(int64_t lo, int64_t hi) { return {CheckKind::kRange, lo, hi, 0, 0, nullptr}; }
constexpr Check dbetween(double lo, double hi) { return {CheckKind::kDoubleRange, 0, 0, lo, hi, nullptr}; }
constexpr Check one_of(const char* c) { return {CheckKind::kOneOf, 0, 0, 0, 0, c}; }
constexpr Check one_of_nocase(const char* c) { return {CheckKind::kOneOfNoCase, 0, 0, 0, 0, c}; }
constexpr Check list_of(const char* c) { return {CheckKind::kListOf, 0, 0, 0, 0, c}; }
constexpr Check non_empty() { return {CheckKind::kNonEmpty, 0, 0, 0, 0, nullptr}; }
constexpr Check kafka_version() { return {CheckKind::kKafkaVersion, 0, 0, 0, 0, nullptr}; }
constexpr Check throttled_replicas() { return {CheckKind::kThrottledReplicas, 0, 0, 0, 0, nullptr}; }
constexpr Check host_counts() { return {CheckKind::kHostCounts, 0, 0, 0, 0, nullptr}; }

// Whether Spool reads the key today.
//   kYes:     acted on.
//   kNo:      harmless to ignore (tuning, metrics): accepted, so a Kafka
//             server.properties starts, and reported in one warning line.
//   kRefused: restricts access or promises safety (TLS, SASL, ACLs, quotas,
//             cluster membership...). Set to anything but its off value (see
//             is_off_value) it stops the start, or fails a topic config with
//             INVALID_CONFIG, naming the key and `refusal`: Spool fails closed
//             rather than run less secured or less safe than configured. When
//             a later change implements such a key it becomes kYes.
enum class Acts : uint8_t { kNo, kYes, kRefused };

struct KeyDef {
  const char* name;
  ConfigType type;
  const char* default_value;  // nullptr = null (unset, no default)
  Check check;
  Acts acts;
  const char* refusal = nullptr;  // kRefused only: why, e.g. "TLS is not supported yet"
};

// Whether a normalized value of `def` leaves the feature off: it equals the
// key's default, or it is empty for a string-like key (string, list,
// password, class), which configures nothing.
bool is_off_value(const KeyDef& def, std::string_view normalized);

// Parses and validates `raw` for `def`. On success returns the normalized
// text (trimmed; booleans lower-cased; lists with items trimmed and joined by
// ","). On failure the message names key, value and the allowed range.
Result<std::string> parse_value(const KeyDef& def, std::string_view raw);

// Describes what values a key allows, e.g. "an int in [14, 2147483647]".
std::string describe_allowed(const KeyDef& def);

// Typed readers for already-normalized values (never fail on parse_value output).
int64_t to_int64(std::string_view normalized);
double to_double(std::string_view normalized);
bool to_bool(std::string_view normalized);
std::vector<std::string> split_list(std::string_view s);

// The closest name in `names` to `key` by edit distance, or "" if none is close.
std::string closest_name(std::string_view key, const std::vector<std::string_view>& names);

std::string_view trim(std::string_view s);

// Every Kafka broker key plus Spool's own (broker_keys.cc). Sorted by nothing in particular.
std::span<const KeyDef> broker_key_defs();
const KeyDef* find_broker_key(std::string_view name);

// Key prefixes Kafka accepts without a fixed name (per-listener overrides,
// remote storage plugin configs, config providers). Such keys are accepted
// and reported as not acted on.
bool is_accepted_prefixed_key(std::string_view name);

}  // namespace spool::config
