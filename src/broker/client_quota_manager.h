// ClientQuotaManager: the client quotas a broker enforces (Kafka's
// ClientQuotaManager and ClientRequestQuotaManager with the default quota
// callback): produce and fetch byte rates and the request-time percentage,
// per user, client id, or both, with defaults.
//
// Contract
// - set_entity(entity, config) replaces one entity's quota values (its
//   /config node: a user node may also hold SCRAM keys, which are ignored;
//   an unusable value is logged and ignored). An empty config removes it.
// - The quota of (user, client id) for a kind is the first entity in
//   Kafka's precedence order that sets that kind:
//     users/U/clients/C, users/U/clients/<default>, users/U,
//     users/<default>/clients/C, users/<default>/clients/<default>,
//     users/<default>, clients/C, clients/<default>.
//   The rate it is held to is shared by every client the matching entity
//   covers, as Kafka's metric tags: users/U is one rate for all of U's
//   client ids; users/<default> one rate per user; clients/<default> one per
//   client id. No matching entity: unlimited (nothing recorded).
// - record(kind, user, client, value, now) adds value to that rate and
//   returns the throttle time in ms (0 within the quota): Kafka's
//   (rate - quota) / quota * window (util/sampled_rate.h), unbounded for
//   byte rates and at most one window for request time, as Kafka.
//   unrecord() takes a value back (a throttled fetch sends nothing).
//   throttle() is the time record(…, 0) would return.
// - Units: bytes for byte rates; for request time, percent-seconds of one
//   thread (a request that kept a thread 10 ms busy records 1.0), so a
//   request_percentage of 100 is one thread.
// - active(kind) is a lock-free test: with no quota of a kind configured
//   anywhere, callers skip the manager entirely (the hot path is untouched).
// - Rates idle for an hour are dropped (Kafka expires its sensors too).
// Threading: every member is thread-safe (one mutex).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "broker/client_quota_entity.h"
#include "cluster/zk_data.h"
#include "util/sampled_rate.h"

namespace spool::broker {

class ClientQuotaManager {
 public:
  ClientQuotaManager(int samples = 11, int64_t window_ms = 1000) : samples_(samples), window_ms_(window_ms) {}

  void set_entity(const QuotaEntity& entity, const cluster::EntityConfig& config);

  bool active(QuotaKind kind) const { return active_[static_cast<int>(kind)].load(std::memory_order_relaxed); }
  // The quota (per second) of (user, client id) for `kind`, nullopt = none.
  std::optional<double> quota(QuotaKind kind, std::string_view user, std::string_view client_id) const;

  int64_t record(QuotaKind kind, std::string_view user, std::string_view client_id, double value, int64_t now_ms);
  void unrecord(QuotaKind kind, std::string_view user, std::string_view client_id, double value, int64_t now_ms);
  int64_t throttle(QuotaKind kind, std::string_view user, std::string_view client_id, int64_t now_ms);

  int64_t window_ms() const { return window_ms_; }
  // The steady clock in ms, the scale record() callers use.
  static int64_t now_ms();

 private:
  using Values = std::array<std::optional<double>, kQuotaKinds>;
  struct Match {
    double limit = 0;
    std::string tag_user;    // "" when the matching entity names no user
    std::string tag_client;  // "" when it names no client id
  };
  using RateKey = std::tuple<int, std::string, std::string>;

  std::optional<Match> match(QuotaKind kind, std::string_view user, std::string_view client_id) const;  // under mu_
  // Records value (may be negative) and returns the throttle; 0 when unlimited. Under mu_.
  int64_t apply(QuotaKind kind, std::string_view user, std::string_view client_id, double value, int64_t now_ms);
  void refresh_active();  // under mu_
  void expire_idle(int64_t now_ms);  // under mu_

  const int samples_;
  const int64_t window_ms_;
  mutable std::mutex mu_;
  std::map<std::string, Values, std::less<>> entities_;  // by QuotaEntity::path()
  std::map<RateKey, util::SampledRate> rates_;
  std::array<std::atomic<bool>, kQuotaKinds> active_{};
  uint64_t records_ = 0;  // counts record() calls, to sweep idle rates now and then
};

}  // namespace spool::broker
