// `spool config` without a broker: the --add-config / --delete-config
// syntax of kafka-configs.sh, and the rendering of a described or altered
// entity. Pure functions over plain structs, tested without a broker.
//
// --add-config "k1=v1,k2=[a,b],k3=v3": pairs separated by commas; a value
// holding commas is wrapped in brackets (the brackets are dropped). Keys
// must be non-empty and appear once. --delete-config "k1,k2".
//
// Table output is kafka-configs.sh's:
//   Dynamic configs for broker 1 are:
//     log.retention.ms=5000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=5000, ...}
// ("All configs for ..." with --all; "Default configs for brokers in the
// cluster are:", "Loggers of broker 1 are:"). JSON: {"entity", "name",
// "configs": [{"name", "value" (null when sensitive or unset), "source",
// "read_only", "sensitive", "synonyms": [{"name", "value", "source"}]}]}.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_args.h"
#include "util/status.h"

namespace spool::cli {

struct DescribedSynonym {
  std::string name;
  std::optional<std::string> value;
  int8_t source = 0;
};

struct DescribedConfig {
  std::string name;
  std::optional<std::string> value;
  int8_t source = 0;
  bool read_only = false;
  bool sensitive = false;
  std::vector<DescribedSynonym> synonyms;
};

// The entity a `spool config` command names.
struct ConfigEntity {
  int8_t resource_type = 4;  // 4 BROKER, 8 BROKER_LOGGER
  std::string name;          // broker id, or "" for the broker defaults
};
// From the parsed arguments (exactly one of --broker, --broker-defaults, --broker-logger).
ConfigEntity config_entity(const ConfigArgs& a);
// "broker 1", "the broker defaults", "broker logger 1".
std::string entity_text(const ConfigEntity& e);

// Kafka's ConfigSource name (DYNAMIC_BROKER_CONFIG...); UNKNOWN for others.
std::string config_source_name(int8_t source);

Result<std::vector<std::pair<std::string, std::string>>> parse_add_config(const std::string& text);
Result<std::vector<std::string>> parse_delete_config(const std::string& text);

// `all` false: only the dynamic entries (sources 2, 3 and 6: what an
// operator set), as kafka-configs.sh without --all.
std::string format_config_describe(const ConfigEntity& e, const std::vector<DescribedConfig>& configs, bool all,
                                   OutputFormat output);
std::string format_config_altered(const ConfigEntity& e, OutputFormat output);

}  // namespace spool::cli
