// ReconnectBackoff: how long a client waits before connecting to a node
// again, Kafka's reconnect.backoff.ms / reconnect.backoff.max.ms semantics:
// after the k-th consecutive failure (a refused or timed-out connect, a
// failed handshake, or a lost connection) the wait is
//   min(reconnect.backoff.ms * 2^(k-1), reconnect.backoff.max.ms)
// scaled by a random factor in [1 - jitter, 1 + jitter] (Kafka: 0.2), never
// above the max. A connection that completes its handshake resets k to 0.
// Plain value; not thread-safe. The random source is seeded by the caller.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>

namespace spool::client {

class ReconnectBackoff {
 public:
  ReconnectBackoff(int64_t base_ms, int64_t max_ms, double jitter, uint64_t seed)
      : base_ms_(std::max<int64_t>(base_ms, 0)),
        max_ms_(std::max(max_ms, std::max<int64_t>(base_ms, 0))),
        jitter_(std::clamp(jitter, 0.0, 1.0)),
        rng_(seed) {}

  // Records one more consecutive failure; returns the wait before the next
  // attempt, in milliseconds.
  int64_t on_failure() {
    ++failures_;
    return wait_ms();
  }
  void on_success() { failures_ = 0; }
  int failures() const { return failures_; }

  // The wait for the current failure count without jitter (0 when none).
  int64_t nominal_ms() const {
    if (failures_ == 0 || base_ms_ == 0) return 0;
    int64_t w = base_ms_;
    for (int i = 1; i < failures_ && w < max_ms_; ++i) w *= 2;
    return std::min(w, max_ms_);
  }

 private:
  int64_t wait_ms() {
    const int64_t nominal = nominal_ms();
    if (jitter_ == 0.0 || nominal == 0) return nominal;
    std::uniform_real_distribution<double> d(1.0 - jitter_, 1.0 + jitter_);
    return std::min(max_ms_, static_cast<int64_t>(static_cast<double>(nominal) * d(rng_)));
  }

  int64_t base_ms_;
  int64_t max_ms_;
  double jitter_;
  std::mt19937_64 rng_;
  int failures_ = 0;
};

}  // namespace spool::client
