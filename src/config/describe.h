// Config descriptions in the shape DescribeConfigs answers with: per key its
// effective value, where it came from (Kafka's ConfigSource numbering), type
// (Kafka's DescribeConfigs ConfigType ids through kafka_type_id), sensitivity
// and synonyms (the keys it falls back to, most specific first: Kafka's order
// dynamic per-broker, dynamic default, static, default). Spool's key tables
// carry no documentation text, so there is none to describe.
// Pure functions over an immutable BrokerConfigLayers (broker_config_layers.h)
// or a BrokerConfig (its static layer only); thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/broker_config.h"
#include "config/broker_config_layers.h"
#include "config/config_def.h"

namespace spool::config {

// Kafka's DescribeConfigsResponse config_source values.
enum class ConfigSource : int8_t {
  kUnknown = 0,
  kDynamicTopic = 1,
  kDynamicBroker = 2,
  kDynamicDefaultBroker = 3,
  kStaticBroker = 4,  // set in server.properties or by --override
  kDefault = 5,
  kDynamicBrokerLogger = 6,  // a BROKER_LOGGER level (KIP-412)
};

struct ConfigSynonym {
  std::string name;
  std::optional<std::string> value;  // nullopt for sensitive or null values
  ConfigSource source = ConfigSource::kDefault;
};

struct ConfigEntry {
  std::string name;
  std::optional<std::string> value;  // nullopt for sensitive (password) or null values
  ConfigSource source = ConfigSource::kDefault;
  std::optional<ConfigType> type;  // nullopt: a key without a definition (prefixed keys)
  bool is_sensitive = false;
  bool read_only = false;  // a broker key Spool does not update dynamically (dynamic_keys.h)
  std::vector<ConfigSynonym> synonyms;
};

// Kafka's DescribeConfigsResponse.ConfigType id of a key's type: 0 UNKNOWN
// (no type known), 1 BOOLEAN, 2 STRING, 3 INT, 4 SHORT, 5 LONG, 6 DOUBLE,
// 7 LIST, 8 CLASS, 9 PASSWORD.
int8_t kafka_type_id(std::optional<ConfigType> type);

// Every topic key for a topic with `overrides`, valued from the effective
// broker config. Synonyms list the override (if any), then each broker key it
// defaults from that is set, per layer (dynamic per-broker, dynamic default,
// static), then the broker default. Unknown override keys are ignored.
std::vector<ConfigEntry> describe_topic_config(const BrokerConfigLayers& broker,
                                               const std::map<std::string, std::string>& overrides);
std::vector<ConfigEntry> describe_topic_config(const BrokerConfig& broker,
                                               const std::map<std::string, std::string>& overrides);

// A BROKER resource naming this broker: every broker key (Kafka's and
// Spool's) plus any accepted prefixed key that is set statically. Each key's
// source is its first synonym's (Kafka's configSynonyms, synonyms before the
// key's own name dropped); read_only unless Spool accepts a dynamic update.
std::vector<ConfigEntry> describe_broker_config(const BrokerConfigLayers& broker);
std::vector<ConfigEntry> describe_broker_config(const BrokerConfig& broker);

// The BROKER resource "" (the cluster-wide default): only the keys set in
// the dynamic default layer, source DYNAMIC_DEFAULT_BROKER_CONFIG, synonyms
// of that source only (Kafka's perBrokerConfig = false).
std::vector<ConfigEntry> describe_broker_defaults(const BrokerConfigLayers& broker);

}  // namespace spool::config
