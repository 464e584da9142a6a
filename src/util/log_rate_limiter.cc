#include "util/log_rate_limiter.h"

#include <algorithm>

#include <fmt/format.h>

namespace spool {

LogRateLimiter::LogRateLimiter(LogRateLimiterOptions options)
    : burst_(std::max(1, options.burst)),
      interval_ms_(std::max<int64_t>(1, options.interval_ms)),
      max_keys_(std::max<size_t>(1, options.max_keys)),
      clock_(clock_or_system(std::move(options.clock))) {}

LogRateLimiter::Verdict LogRateLimiter::check(std::string_view key) {
  const int64_t now = clock_->monotonic_ms();
  std::lock_guard lock(mu_);
  auto it = windows_.find(std::string(key));
  if (it == windows_.end()) {
    const std::string k = windows_.size() < max_keys_ ? std::string(key) : std::string("*");
    it = windows_.try_emplace(k, Window{now, 0, 0}).first;
  }
  Window& w = it->second;
  Verdict v;
  if (now - w.start_ms >= interval_ms_) {
    if (w.suppressed > 0) v.summary = Suppressed{it->first, w.suppressed, now - w.start_ms};
    w = Window{now, 0, 0};
  }
  if (w.logged < static_cast<uint64_t>(burst_)) {
    ++w.logged;
    v.log = true;
  } else {
    ++w.suppressed;
  }
  return v;
}

std::vector<LogRateLimiter::Suppressed> LogRateLimiter::take_suppressed() {
  const int64_t now = clock_->monotonic_ms();
  std::vector<Suppressed> out;
  std::lock_guard lock(mu_);
  for (auto it = windows_.begin(); it != windows_.end();) {
    Window& w = it->second;
    if (now - w.start_ms < interval_ms_) {
      ++it;
    } else if (w.suppressed > 0) {
      out.push_back(Suppressed{it->first, w.suppressed, now - w.start_ms});
      // A new window from now: the reported lines are not counted twice,
      // and a client still sending gets its next `burst` lines.
      w = Window{now, 0, 0};
      ++it;
    } else {
      it = windows_.erase(it);
    }
  }
  std::sort(out.begin(), out.end(), [](const Suppressed& a, const Suppressed& b) { return a.key < b.key; });
  return out;
}

size_t LogRateLimiter::tracked() const {
  std::lock_guard lock(mu_);
  return windows_.size();
}

std::string LogRateLimiter::describe(const Suppressed& s) {
  return fmt::format("suppressed {} similar messages from {} in the last {} s", s.count, s.key,
                     (s.window_ms + 500) / 1000);
}

}  // namespace spool
