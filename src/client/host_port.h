// parse_host_port: a broker address as Kafka's clients take it in
// bootstrap.servers or --bootstrap-server: "host:port", "[v6]:port", or a
// bare host (or bare IPv6 address) with the default port. Pure; errors name
// the address as given.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "util/status.h"

namespace spool::client {

// Parses "host:port" / "[v6]:port"; port defaults to `default_port` when absent.
Result<std::pair<std::string, uint16_t>> parse_host_port(const std::string& s, uint16_t default_port = 9092);

}  // namespace spool::client
