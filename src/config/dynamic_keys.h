// Dynamic broker configs: which broker keys an AlterConfigs or
// IncrementalAlterConfigs on a BROKER resource may set (Kafka's
// DynamicBrokerConfig.AllDynamicConfigs, 3.x), what Spool does with each,
// and the validation of an entity's new config set.
//
// Kafka marks a key dynamic per-broker (only for a resource naming a broker
// id) or cluster-wide (also for the default resource, name ""). Every other
// broker key is read-only. Spool accepts a dynamic key only when it applies a
// change while running (kLive); for the rest of Kafka's dynamic keys the
// update is refused, never accepted and ignored:
//   * a key Spool acts on only at start (kAtStart, e.g. num.replica.fetchers);
//   * a key Spool does not act on at all (its Acts::kNo keys);
//   * a key Spool refuses to start with (Acts::kRefused: TLS, SASL, quotas,
//     tiered storage), which fails closed here too, whatever the value.
// validate_dynamic_broker_configs() checks a set in Kafka's order and with
// Kafka's messages where Kafka has one: unknown key (Spool's: INVALID_CONFIG
// with a did-you-mean; Kafka stores unknown keys as custom configs),
// read-only keys ("Cannot update these configs dynamically: Set(...)",
// INVALID_REQUEST), TLS keystore keys without a listener prefix (Kafka's
// message, INVALID_REQUEST), values against the key table's checks
// (INVALID_CONFIG), per-broker keys on the default resource ("Cannot update
// these configs at default cluster level, broker id must be specified:
// Set(...)", INVALID_REQUEST), then Spool's refusals (INVALID_REQUEST naming
// the key and why). Static tables; pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace spool::config {

// Kafka's INVALID_REQUEST error code, carried in the Status of refused updates.
inline constexpr int16_t kInvalidRequestCode = 42;

enum class DynamicScope : uint8_t {
  kClusterWide,  // per-broker or the cluster default
  kPerBroker,    // only for a resource naming a broker id (Kafka's PerBrokerConfigs)
};

enum class LiveUpdate : uint8_t {
  kLive,     // Spool applies a change at once on every broker it concerns
  kAtStart,  // Spool reads the key only when it starts: refused dynamically
};

struct DynamicKey {
  const char* name;
  DynamicScope scope;
  LiveUpdate update;  // meaningful for keys Spool acts on (Acts::kYes)
};

// Kafka's dynamic broker keys (every one of them is also in broker_key_defs()).
std::span<const DynamicKey> dynamic_broker_keys();
// nullptr: the key is read-only in Kafka (or not a broker key).
const DynamicKey* find_dynamic_broker_key(std::string_view name);

// Whether a dynamic update of `name` is accepted by Spool (Kafka marks it
// dynamic, Spool acts on it and applies it live). DescribeConfigs reports
// every other broker key read-only.
bool accepts_dynamic_update(std::string_view name);

// Kafka's brokerConfigSynonyms: the keys that set the same value, most
// specific first (log.retention.ms/.minutes/.hours; log.roll.ms/.hours;
// log.roll.jitter.ms/.hours; log.flush.interval.ms and
// log.flush.scheduler.interval.ms); any other key is its own only synonym.
std::vector<std::string> broker_key_synonyms(std::string_view name);

// Kafka's formatting of a key set in its messages: "Set(a, b)", sorted here.
std::string kafka_key_set(const std::vector<std::string>& keys);

// Validates the whole new dynamic config set of one entity (the per-broker
// entity when `per_broker`, else the cluster default) and returns it
// normalized (config_def.h parse_value). Errors as described above; the
// message names every offending key of the first failed check.
Result<std::map<std::string, std::string>> validate_dynamic_broker_configs(
    const std::map<std::string, std::string>& configs, bool per_broker);

}  // namespace spool::config
