#include "net/creation_rate.h"

#include <algorithm>
#include <cmath>

namespace spool::net {

void CreationRate::expire(int64_t now_ms) {
  const int64_t span = static_cast<int64_t>(samples_) * window_ms_;
  while (!live_.empty() && live_.front().start_ms + span <= now_ms) live_.pop_front();
}

// Kafka's Rate.windowSize: the time since the oldest sample began, plus a
// whole window for each of the samples - 1 full windows not yet seen.
int64_t CreationRate::window(int64_t now_ms) const {
  int64_t elapsed = live_.empty() ? 0 : now_ms - live_.front().start_ms;
  const int64_t full = elapsed / window_ms_;
  if (full < samples_ - 1) elapsed += (samples_ - 1 - full) * window_ms_;
  return std::max<int64_t>(elapsed, 1);
}

double CreationRate::rate(int64_t now_ms) {
  expire(now_ms);
  int64_t total = 0;
  for (const Sample& s : live_) total += s.count;
  return static_cast<double>(total) * 1000.0 / static_cast<double>(window(now_ms));
}

int64_t CreationRate::record(int64_t now_ms, double limit_per_second) {
  expire(now_ms);
  if (live_.empty() || now_ms >= live_.back().start_ms + window_ms_) live_.push_back({now_ms, 0});
  ++live_.back().count;
  const double measured = rate(now_ms);
  if (limit_per_second <= 0 || measured <= limit_per_second) return 0;
  const double throttle = (measured - limit_per_second) / limit_per_second * static_cast<double>(window(now_ms));
  return std::min<int64_t>(std::llround(throttle), static_cast<int64_t>(samples_) * window_ms_);
}

}  // namespace spool::net
