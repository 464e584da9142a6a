// max.connections.per.ip.overrides: "host:count,host:count" (Kafka's
// Csv.parseCsvMap: items split at commas, each at its last ':', spaces
// around either trimmed; "" is no override). Hosts are names or IP
// addresses, resolved by whoever applies the limits (net::ConnectionQuotas).
// Pure functions; errors name the offending item.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "util/status.h"

namespace spool::config {

// host -> count (a count is an int >= 0; a later item for a host wins).
Result<std::map<std::string, int>> parse_host_counts(std::string_view value);

// "" when valid, else why not (for the key's error message).
std::string check_host_counts(std::string_view value);

}  // namespace spool::config
