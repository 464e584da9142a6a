#include "util/sampled_rate.h"

#include <algorithm>
#include <cmath>

namespace spool::util {

void SampledRate::expire(int64_t now_ms) {
  const int64_t span = static_cast<int64_t>(samples_) * window_ms_;
  while (!live_.empty() && live_.front().start_ms + span <= now_ms) live_.pop_front();
}

int64_t SampledRate::window(int64_t now_ms) const {
  int64_t elapsed = live_.empty() ? 0 : now_ms - live_.front().start_ms;
  const int64_t full = elapsed / window_ms_;
  if (full < samples_ - 1) elapsed += (samples_ - 1 - full) * window_ms_;
  return std::max<int64_t>(elapsed, 1);
}

void SampledRate::record(int64_t now_ms, double value) {
  expire(now_ms);
  if (live_.empty() || now_ms >= live_.back().start_ms + window_ms_) live_.push_back({now_ms, 0.0});
  live_.back().value += value;
}

double SampledRate::rate(int64_t now_ms) {
  expire(now_ms);
  double total = 0;
  for (const Sample& s : live_) total += s.value;
  return total * 1000.0 / static_cast<double>(window(now_ms));
}

int64_t SampledRate::throttle_ms(int64_t now_ms, double limit_per_second, int64_t max_ms) {
  if (limit_per_second <= 0) return 0;
  const double measured = rate(now_ms);
  if (measured <= limit_per_second) return 0;
  const double t = (measured - limit_per_second) / limit_per_second * static_cast<double>(window(now_ms));
  const int64_t ms = std::llround(std::min(t, 9.0e15));
  return max_ms >= 0 ? std::min(ms, max_ms) : ms;
}

}  // namespace spool::util
