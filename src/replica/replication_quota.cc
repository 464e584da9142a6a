#include "replica/replication_quota.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace spool::replica {

namespace {

int64_t steady_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ReplicationQuota::ReplicationQuota(std::function<int64_t()> limit, int samples, int64_t window_ms,
                                   std::function<int64_t()> now_ms)
    : limit_(std::move(limit)),
      samples_(std::max(samples, 2)),
      window_ms_(std::max<int64_t>(window_ms, 1)),
      now_ms_(now_ms ? std::move(now_ms) : std::function<int64_t()>(steady_now_ms)),
      ring_(static_cast<size_t>(samples_)) {}

bool ReplicationQuota::unlimited() const {
  const int64_t l = limit_ ? limit_() : std::numeric_limits<int64_t>::max();
  return l <= 0 || l == std::numeric_limits<int64_t>::max();
}

void ReplicationQuota::roll(int64_t now) {
  Sample& cur = ring_[current_];
  if (cur.start_ms >= 0 && now < cur.start_ms + window_ms_) return;
  current_ = (current_ + 1) % ring_.size();
  ring_[current_] = Sample{now, 0};
  // Windows older than the whole span are dropped.
  for (auto& s : ring_) {
    if (s.start_ms >= 0 && now - s.start_ms >= static_cast<int64_t>(samples_) * window_ms_) s = Sample{};
  }
}

double ReplicationQuota::measure(int64_t now) const {
  int64_t bytes = 0;
  int64_t oldest = now;
  for (const auto& s : ring_) {
    if (s.start_ms < 0) continue;
    bytes += s.bytes;
    oldest = std::min(oldest, s.start_ms);
  }
  int64_t span = now - oldest;
  // Kafka's Rate.windowSize: padded to at least samples - 1 full windows.
  const int64_t full = span / window_ms_;
  if (full < samples_ - 1) span += (samples_ - 1 - full) * window_ms_;
  return static_cast<double>(bytes) * 1000.0 / static_cast<double>(std::max<int64_t>(span, 1));
}

bool ReplicationQuota::exceeded() {
  if (unlimited()) return false;
  std::lock_guard lk(mu_);
  const int64_t now = now_ms_();
  roll(now);
  return measure(now) > static_cast<double>(limit_());
}

void ReplicationQuota::record(int64_t bytes) {
  if (bytes <= 0) return;
  std::lock_guard lk(mu_);
  roll(now_ms_());
  ring_[current_].bytes += bytes;
}

double ReplicationQuota::measured_bytes_per_second() {
  std::lock_guard lk(mu_);
  const int64_t now = now_ms_();
  roll(now);
  return measure(now);
}

}  // namespace spool::replica
