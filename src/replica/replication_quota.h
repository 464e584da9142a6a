// ReplicationQuota: one side's replication throttle (Kafka's
// ReplicationQuotaManager, KIP-73): a byte-rate limit and a rate measured
// over a sliding window, consulted for the partitions whose topic lists this
// broker's replica in leader.replication.throttled.replicas (the leader
// side, serving follower fetches) or follower.replication.throttled.replicas
// (the follower side, sending them). Only replicas that are not in sync are
// throttled: the caller checks that, then exceeded(), and records the bytes
// it moved for throttled partitions.
//
// The rate is Kafka's: `samples` windows of `window_ms` (its
// replication.quota.window.num = 11, .size.seconds = 1); measured = bytes in
// the retained windows / the time they span, which is padded to at least
// (samples - 1) windows, so a first burst of up to that many seconds' worth
// passes before the limit bites. exceeded() is measured > limit. The limit
// comes from a callback read on every check (a dynamic broker config,
// leader/follower.replication.throttled.rate; <= 0 or INT64_MAX: no limit).
//
// Threading: every method is thread-safe (one mutex; record and exceeded are
// a few arithmetic steps). No failure.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace spool::replica {

class ReplicationQuota {
 public:
  // limit(): bytes per second. now_ms(): a monotonic clock (tests pass their own).
  explicit ReplicationQuota(std::function<int64_t()> limit, int samples = 11, int64_t window_ms = 1000,
                            std::function<int64_t()> now_ms = {});

  bool unlimited() const;
  bool exceeded();
  void record(int64_t bytes);
  double measured_bytes_per_second();

 private:
  struct Sample {
    int64_t start_ms = -1;
    int64_t bytes = 0;
  };
  void roll(int64_t now);  // under mu_
  double measure(int64_t now) const;  // under mu_

  std::function<int64_t()> limit_;
  const int samples_;
  const int64_t window_ms_;
  std::function<int64_t()> now_ms_;
  std::mutex mu_;
  std::vector<Sample> ring_;
  size_t current_ = 0;
};

}  // namespace spool::replica
