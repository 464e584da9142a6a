#include "net/connection_quotas.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <system_error>
#include <vector>

#include <asio/ip/address.hpp>
#include <spdlog/spdlog.h>

namespace spool::net {
namespace {

// One connection counted at `now`, and how long to hold it: Kafka's
// ConnectionQuotas bounds the throttle by one quota window.
int64_t hold(util::SampledRate& rate, int64_t now_ms, int limit) {
  rate.record(now_ms, 1.0);
  return rate.throttle_ms(now_ms, limit, rate.window_ms());
}

// The addresses of `host` in asio's text form: the literal itself when it is
// one, else what getaddrinfo gives (empty when it does not resolve).
std::vector<std::string> addresses_of(const std::string& host) {
  std::error_code ec;
  auto literal = asio::ip::make_address(host, ec);
  if (!ec) return {literal.to_string()};
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::vector<std::string> out;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return out;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[NI_MAXHOST];
    if (getnameinfo(a->ai_addr, a->ai_addrlen, text, sizeof text, nullptr, 0, NI_NUMERICHOST) != 0) continue;
    auto addr = asio::ip::make_address(text, ec);
    if (!ec) out.push_back(addr.to_string());
  }
  freeaddrinfo(found);
  return out;
}

}  // namespace

ConnectionQuotas::ConnectionQuotas(const ConnectionLimits& limits) { set_limits(limits); }

void ConnectionQuotas::set_limits(const ConnectionLimits& limits) {
  std::unordered_map<std::string, int> resolved;
  for (const auto& [host, count] : limits.per_ip_overrides) {
    auto addresses = addresses_of(host);
    if (addresses.empty()) {
      spdlog::warn("net: max.connections.per.ip.overrides: host '{}' does not resolve; its override is not applied",
                   host);
    }
    for (const auto& a : addresses) resolved[a] = count;
  }
  std::lock_guard lock(mu_);
  max_connections_ = limits.max_connections;
  max_per_ip_ = limits.max_per_ip;
  overrides_ = std::move(resolved);
  if (limits.quota_window_num != rate_limits_.quota_window_num || limits.quota_window_ms != rate_limits_.quota_window_ms) {
    broker_rate_ = util::SampledRate(limits.quota_window_num, limits.quota_window_ms);
    listener_rates_.clear();
  }
  rate_limits_ = limits;
}

int64_t ConnectionQuotas::record_creation(uint32_t listener, int64_t now_ms) {
  std::lock_guard lock(mu_);
  int64_t wait = 0;
  auto own = rate_limits_.listener_creation_rates.find(listener);
  if (own != rate_limits_.listener_creation_rates.end() && own->second < INT32_MAX) {
    auto [it, fresh] = listener_rates_.try_emplace(listener, rate_limits_.quota_window_num, rate_limits_.quota_window_ms);
    wait = hold(it->second, now_ms, own->second);
  }
  if (rate_limits_.max_creation_rate < INT32_MAX && static_cast<int64_t>(listener) != rate_limits_.inter_broker_listener) {
    wait = std::max(wait, hold(broker_rate_, now_ms, rate_limits_.max_creation_rate));
  }
  return wait;
}

std::optional<std::string> ConnectionQuotas::admit(const std::string& ip, uint32_t listener) {
  std::lock_guard lock(mu_);
  if (open_ >= static_cast<size_t>(std::max(0, max_connections_))) {
    return "max.connections (" + std::to_string(max_connections_) + ") reached";
  }
  auto o = overrides_.find(ip);
  const int limit = o != overrides_.end() ? o->second : max_per_ip_;
  int& mine = per_ip_[ip];
  if (mine >= limit) {
    if (mine == 0) per_ip_.erase(ip);
    return "address " + ip + " already has the configured maximum of " + std::to_string(limit) + " connections";
  }
  ++mine;
  ++open_;
  ++per_listener_[listener];
  return std::nullopt;
}

void ConnectionQuotas::release(const std::string& ip, uint32_t listener) {
  std::lock_guard lock(mu_);
  auto it = per_ip_.find(ip);
  if (it == per_ip_.end()) return;  // never admitted
  --open_;
  if (auto l = per_listener_.find(listener); l != per_listener_.end() && --l->second == 0) per_listener_.erase(l);
  if (--it->second <= 0) per_ip_.erase(it);
}

size_t ConnectionQuotas::open() const {
  std::lock_guard lock(mu_);
  return open_;
}

size_t ConnectionQuotas::open_on(uint32_t listener) const {
  std::lock_guard lock(mu_);
  auto it = per_listener_.find(listener);
  return it == per_listener_.end() ? 0 : it->second;
}

}  // namespace spool::net
