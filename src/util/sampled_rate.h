// SampledRate: Kafka's Rate over sampled windows (its Metrics Rate with a
// SampledStat of `samples` windows of `window_ms`; quota.window.num = 11 and
// quota.window.size.seconds = 1 by default), and the throttle time Kafka's
// QuotaUtils derives from it. Used for connection creation rates
// (net/connection_quotas.h) and client quotas (broker/client_quota_manager.h).
//
// Contract
// - record(now, v) adds v to the sample that covers `now` (a new sample
//   starts when `now` is a whole window past the newest one's start);
//   samples whose start is `samples` windows old are forgotten.
// - rate(now) = the sum of the live samples / window(now) in seconds, where
//   window(now) is Kafka's Rate.windowSize: the time since the oldest live
//   sample began, plus a whole window for each of the samples - 1 full
//   windows not yet seen. So the divisor is never under samples - 1 windows,
//   and a first burst of that many windows' worth passes unthrottled.
// - throttle_ms(now, limit, max_ms): 0 while rate <= limit (or limit <= 0:
//   none), else (rate - limit) / limit * window(now), rounded
//   (QuotaUtils.throttleTime), and at most max_ms when max_ms >= 0
//   (QuotaUtils.boundedThrottleTime).
// - `now` is on any monotonic ms scale that never goes back.
// Threading: not thread-safe (the owner's lock guards it). No failure.
#pragma once

#include <cstdint>
#include <deque>

namespace spool::util {

class SampledRate {
 public:
  explicit SampledRate(int samples = 11, int64_t window_ms = 1000)
      : samples_(samples < 1 ? 1 : samples), window_ms_(window_ms < 1 ? 1 : window_ms) {}

  void record(int64_t now_ms, double value);
  double rate(int64_t now_ms);  // per second
  int64_t throttle_ms(int64_t now_ms, double limit_per_second, int64_t max_ms = -1);
  // The newest sample's start (-1: nothing recorded), for expiring idle rates.
  int64_t last_sample_ms() const { return live_.empty() ? -1 : live_.back().start_ms; }
  int64_t window_ms() const { return window_ms_; }

 private:
  struct Sample {
    int64_t start_ms;
    double value;
  };
  void expire(int64_t now_ms);
  int64_t window(int64_t now_ms) const;

  int samples_;
  int64_t window_ms_;
  std::deque<Sample> live_;
};

}  // namespace spool::util
