// ReplicationThrottle: the broker's current replication throttle rates,
// Kafka's leader.replication.throttled.rate and
// follower.replication.throttled.rate in bytes per second (>= 0; Kafka's
// default Long.MAX_VALUE means unthrottled). They bound, per broker, the
// bandwidth of the replicas a topic lists in its
// leader/follower.replication.throttled.replicas (reassignment throttles).
//
// Who sets it: broker::DynamicBrokerConfig, from the effective config (per
// broker dynamic > cluster default > static > default), at start and on every
// dynamic change. Who reads it: the replica fetcher (follower rate) and the
// fetch path serving followers (leader rate); Spool does not throttle yet,
// it only stores and exposes the values.
//
// Threading: lock-free; any thread may read at any time (relaxed atomic
// loads: a reader sees the old or the new value, never a torn one). Owned by
// DynamicBrokerConfig, which outlives every reader; never throws.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>

namespace spool::config {

class ReplicationThrottle {
 public:
  static constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();

  // leader.replication.throttled.rate: bytes/s a leader may serve to throttled followers.
  int64_t leader_bytes_per_second() const noexcept { return leader_.load(std::memory_order_relaxed); }
  // follower.replication.throttled.rate: bytes/s a follower may fetch for throttled replicas.
  int64_t follower_bytes_per_second() const noexcept { return follower_.load(std::memory_order_relaxed); }
  bool leader_throttled() const noexcept { return leader_bytes_per_second() != kUnlimited; }
  bool follower_throttled() const noexcept { return follower_bytes_per_second() != kUnlimited; }

  // Negative values (never validated in) are stored as 0.
  void set(int64_t leader_bytes_per_second, int64_t follower_bytes_per_second) noexcept {
    leader_.store(leader_bytes_per_second < 0 ? 0 : leader_bytes_per_second, std::memory_order_relaxed);
    follower_.store(follower_bytes_per_second < 0 ? 0 : follower_bytes_per_second, std::memory_order_relaxed);
  }

 private:
  std::atomic<int64_t> leader_{kUnlimited};
  std::atomic<int64_t> follower_{kUnlimited};
};

}  // namespace spool::config
