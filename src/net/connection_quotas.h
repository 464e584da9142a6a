// ConnectionQuotas: how many connections a server keeps open (Kafka's
// ConnectionQuotas): max.connections over every listener, and
// max.connections.per.ip per client address, raised or lowered for some
// addresses by max.connections.per.ip.overrides. A connection over a limit
// is closed right after accept; open ones are never closed by a lower limit.
//
// Contract
// - admit(ip) counts a new connection from `ip` in, or returns why it may
//   not be: the total is at max.connections, or `ip` is at its own limit
//   (its override, else max.connections.per.ip). release(ip) counts it out
//   (an address with nothing admitted is ignored).
// - Overrides name hosts or IP addresses; set_limits() resolves names
//   (every address a name has gets its count; a name that does not resolve
//   is logged and skipped, as Kafka's InetAddress lookup would fail it at
//   config time). Addresses compare in asio's text form.
// - record_creation(listener, now) counts a connection accepted on a
//   listener against max.connection.creation.rate (broker-wide, except on
//   the inter-broker listener, as Kafka) and
//   listener.name.<l>.max.connection.creation.rate, and returns how long to
//   hold it and the acceptor: Kafka's rate over quota.window.num samples of
//   quota.window.size.seconds (util/sampled_rate.h), and at most one window
//   (Kafka's ConnectionQuotas bound). A connection refused by
//   admit() is not counted.
// Threading: any thread; one mutex, taken once per connection, not per request.
#pragma once

#include <climits>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "util/sampled_rate.h"

namespace spool::net {

struct ConnectionLimits {
  int max_connections = INT32_MAX;                 // max.connections
  int max_per_ip = INT32_MAX;                      // max.connections.per.ip
  std::map<std::string, int> per_ip_overrides;     // max.connections.per.ip.overrides (host or IP -> count)
  int max_creation_rate = INT32_MAX;               // max.connection.creation.rate (per second)
  std::map<uint32_t, int> listener_creation_rates{};  // listener index -> listener.name.<l>.max.connection.creation.rate
  int64_t inter_broker_listener = -1;              // its index: exempt from max_creation_rate
  int quota_window_num = 11;                       // quota.window.num
  int quota_window_ms = 1000;                      // quota.window.size.seconds, in ms
  bool operator==(const ConnectionLimits&) const = default;
};

class ConnectionQuotas {
 public:
  explicit ConnectionQuotas(const ConnectionLimits& limits = {});
  void set_limits(const ConnectionLimits& limits);

  // nullopt: admitted and counted (also per listener index); else why it
  // is refused.
  std::optional<std::string> admit(const std::string& ip, uint32_t listener = 0);
  void release(const std::string& ip, uint32_t listener = 0);
  int64_t record_creation(uint32_t listener, int64_t now_ms);
  size_t open() const;
  size_t open_on(uint32_t listener) const;  // admitted on that listener and not released

 private:
  mutable std::mutex mu_;
  int max_connections_ = INT32_MAX;
  int max_per_ip_ = INT32_MAX;
  std::unordered_map<std::string, int> overrides_;  // resolved address -> count
  size_t open_ = 0;
  std::unordered_map<std::string, int> per_ip_;     // address -> open connections
  std::map<uint32_t, size_t> per_listener_;         // listener index -> open connections
  ConnectionLimits rate_limits_;                    // the creation-rate fields of the limits
  util::SampledRate broker_rate_;
  std::map<uint32_t, util::SampledRate> listener_rates_;
};

}  // namespace spool::net
