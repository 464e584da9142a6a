// CreationRate: how many connections a listener (or the whole broker) opened
// per second, measured as Kafka's Rate over sampled windows
// (quota.window.num samples of quota.window.size.seconds; 11 of 1 s by
// default), and the throttle time Kafka's ConnectionQuotas derives from it.
//
// record(now) counts one connection at `now` and returns how long (ms) to
// hold it, and the acceptor, before serving it: 0 within the limit, else
// (rate - limit) / limit * window, at most the whole sampled span (Kafka's
// QuotaUtils.boundedThrottleTime). The window is Kafka's: the time since
// the oldest live sample began, plus one window for each of the samples - 1
// full windows not yet seen (so never under samples - 1 windows, and a fresh
// broker is not throttled by its first handful of connections). Not thread-safe
// (ConnectionQuotas' mutex guards it); `now` on any monotonic ms scale.
#pragma once

#include <cstdint>
#include <deque>

namespace spool::net {

class CreationRate {
 public:
  explicit CreationRate(int samples = 11, int64_t window_ms = 1000) : samples_(samples), window_ms_(window_ms) {}

  int64_t record(int64_t now_ms, double limit_per_second);
  double rate(int64_t now_ms);  // per second, after dropping expired samples

 private:
  struct Sample {
    int64_t start_ms;
    int64_t count;
  };
  void expire(int64_t now_ms);
  int64_t window(int64_t now_ms) const;

  int samples_;
  int64_t window_ms_;
  std::deque<Sample> live_;
};

}  // namespace spool::net
