#include "broker/client_quota_manager.h"

#include <chrono>

#include <spdlog/spdlog.h>

namespace spool::broker {
namespace {

constexpr int64_t kIdleRateMs = 3600 * 1000;  // Kafka's InactiveSensorExpirationTimeSeconds
constexpr uint64_t kSweepEvery = 4096;

}  // namespace

int64_t ClientQuotaManager::now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void ClientQuotaManager::set_entity(const QuotaEntity& entity, const cluster::EntityConfig& config) {
  Values values;
  for (const auto& [key, text] : config) {
    auto kind = quota_kind_of_key(key);
    if (!kind) continue;  // SCRAM credentials, or a key Spool does not enforce
    auto v = parse_quota_value(text);
    if (!v || !validate_quota_value(key, *v)) {
      spdlog::warn("client quotas: ignoring {}={} of {}: not a usable quota", key, text, entity.path());
      continue;
    }
    values[static_cast<int>(*kind)] = *v;
  }
  bool any = false;
  for (const auto& v : values) any = any || v.has_value();
  std::lock_guard lock(mu_);
  if (any) {
    entities_[entity.path()] = values;
  } else {
    entities_.erase(entity.path());
  }
  refresh_active();
}

void ClientQuotaManager::refresh_active() {
  for (int k = 0; k < kQuotaKinds; ++k) {
    bool on = false;
    for (const auto& [path, values] : entities_) on = on || values[k].has_value();
    active_[k].store(on, std::memory_order_relaxed);
  }
}

std::optional<ClientQuotaManager::Match> ClientQuotaManager::match(QuotaKind kind, std::string_view user,
                                                                   std::string_view client_id) const {
  const std::string u = sanitize_entity_name(user);
  const std::string c = sanitize_entity_name(client_id);
  const std::string d(kDefaultEntityName);
  // Kafka's DefaultQuotaCallback order, with the metric tags each one shares.
  struct Candidate {
    std::string path;
    bool by_user;
    bool by_client;
  };
  const Candidate order[] = {
      {"users/" + u + "/clients/" + c, true, true}, {"users/" + u + "/clients/" + d, true, true},
      {"users/" + u, true, false},                  {"users/" + d + "/clients/" + c, true, true},
      {"users/" + d + "/clients/" + d, true, true}, {"users/" + d, true, false},
      {"clients/" + c, false, true},                {"clients/" + d, false, true},
  };
  for (const Candidate& cand : order) {
    auto it = entities_.find(cand.path);
    if (it == entities_.end() || !it->second[static_cast<int>(kind)]) continue;
    return Match{*it->second[static_cast<int>(kind)], cand.by_user ? std::string(user) : std::string(),
                 cand.by_client ? std::string(client_id) : std::string()};
  }
  return std::nullopt;
}

std::optional<double> ClientQuotaManager::quota(QuotaKind kind, std::string_view user,
                                                std::string_view client_id) const {
  if (!active(kind)) return std::nullopt;
  std::lock_guard lock(mu_);
  auto m = match(kind, user, client_id);
  if (!m) return std::nullopt;
  return m->limit;
}

int64_t ClientQuotaManager::apply(QuotaKind kind, std::string_view user, std::string_view client_id, double value,
                                  int64_t now_ms) {
  auto m = match(kind, user, client_id);
  if (!m) return 0;
  auto key = RateKey{static_cast<int>(kind), std::move(m->tag_user), std::move(m->tag_client)};
  auto it = rates_.find(key);
  if (it == rates_.end()) it = rates_.emplace(std::move(key), util::SampledRate(samples_, window_ms_)).first;
  if (value != 0) it->second.record(now_ms, value);
  // Kafka bounds the request-time throttle by one window, not the byte rates.
  return it->second.throttle_ms(now_ms, m->limit, kind == QuotaKind::kRequest ? window_ms_ : -1);
}

int64_t ClientQuotaManager::record(QuotaKind kind, std::string_view user, std::string_view client_id, double value,
                                   int64_t now_ms) {
  if (!active(kind)) return 0;
  std::lock_guard lock(mu_);
  if (++records_ % kSweepEvery == 0) expire_idle(now_ms);
  return apply(kind, user, client_id, value, now_ms);
}

void ClientQuotaManager::unrecord(QuotaKind kind, std::string_view user, std::string_view client_id, double value,
                                  int64_t now_ms) {
  if (!active(kind)) return;
  std::lock_guard lock(mu_);
  apply(kind, user, client_id, -value, now_ms);
}

int64_t ClientQuotaManager::throttle(QuotaKind kind, std::string_view user, std::string_view client_id,
                                     int64_t now_ms) {
  if (!active(kind)) return 0;
  std::lock_guard lock(mu_);
  return apply(kind, user, client_id, 0, now_ms);
}

void ClientQuotaManager::expire_idle(int64_t now_ms) {
  for (auto it = rates_.begin(); it != rates_.end();) {
    const int64_t last = it->second.last_sample_ms();
    if (last < 0 || now_ms - last > kIdleRateMs) {
      it = rates_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace spool::broker
