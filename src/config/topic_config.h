// Topic-level configs (Kafka's topic keys plus Spool's durable.writes): the
// schema, validation for CreateTopics/AlterConfigs, and the effective value
// of every key for a topic (its override, else the broker key it defaults
// from). Static tables; all functions are pure and thread-safe.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>

#include "config/broker_config.h"
#include "config/config_def.h"
#include "util/status.h"

namespace spool::config {

// Kafka's INVALID_CONFIG error code, carried in the Status of failed validations.
inline constexpr int16_t kInvalidConfigCode = 40;

struct TopicKeyDef {
  KeyDef def;                  // default_value = Kafka's topic-level default
  const char* broker_synonym;  // broker key the topic default comes from (nullptr = none)
};

std::span<const TopicKeyDef> topic_key_defs();
const TopicKeyDef* find_topic_key(std::string_view name);

// One key/value. Unknown key or bad value -> Status with kafka_code 40.
Status validate_topic_config(std::string_view key, std::string_view value);
// A whole override set: each key, then cross-key rules (min.compaction.lag.ms
// <= max.compaction.lag.ms; local retention within total retention).
Status validate_topic_configs(const std::map<std::string, std::string>& overrides);

// Every topic key's effective value (normalized): the override if present,
// else the broker's resolved value of its synonym, else the topic default.
std::map<std::string, std::string> effective_topic_config(const BrokerConfig& broker,
                                                          const std::map<std::string, std::string>& overrides);

// The value a topic gets for `def` when it has no override.
std::string topic_default_from_broker(const BrokerConfig& broker, const TopicKeyDef& def);

}  // namespace spool::config
