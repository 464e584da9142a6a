// LogRateLimiter: bounds the log lines one key (a client's address) can cause.
//
// Contract: each key has a window of `interval_ms` that starts with its first
// line. In a window the first `burst` lines are allowed (check() says log);
// the rest are only counted. The count of a window that ended with lines
// suppressed is reported once, as a Suppressed summary ("suppressed K
// similar messages from ADDR in the last S s", describe()): by the next
// check() of that key, or by take_suppressed(), which the owner calls
// periodically so a client that went quiet is still accounted for.
// take_suppressed() also forgets keys whose window ended without
// suppression, so memory is bounded by the keys active in one interval, and
// never by more than `max_keys`: beyond it, new keys share the key "*".
//
// Time comes from the Clock (monotonic scale; a ManualClock in tests).
// Threading: every method may be called from any thread (one mutex; meant for
// rejected input, not for a hot path). Failure: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/clock.h"

namespace spool {

struct LogRateLimiterOptions {
  int burst = 10;              // lines allowed per key and window (< 1 acts as 1)
  int64_t interval_ms = 5000;  // window length (< 1 acts as 1)
  size_t max_keys = 4096;      // distinct keys tracked at once; the rest share "*"
  std::shared_ptr<Clock> clock;  // null: system_clock()
};

class LogRateLimiter {
 public:
  struct Suppressed {
    std::string key;
    uint64_t count = 0;       // lines not logged in the window
    int64_t window_ms = 0;    // from the window's start to the report
  };
  struct Verdict {
    bool log = false;                   // log this line
    std::optional<Suppressed> summary;  // log this first: an ended window's count
  };

  explicit LogRateLimiter(LogRateLimiterOptions options = {});

  // One line about `key` wants to be logged.
  Verdict check(std::string_view key);
  // Summaries of every window that ended with lines suppressed (their count
  // reset); forgets keys whose window ended quietly.
  std::vector<Suppressed> take_suppressed();
  // Keys tracked right now (tests).
  size_t tracked() const;

  static std::string describe(const Suppressed& s);

 private:
  struct Window {
    int64_t start_ms = 0;
    uint64_t logged = 0;
    uint64_t suppressed = 0;
  };

  const int burst_;
  const int64_t interval_ms_;
  const size_t max_keys_;
  const std::shared_ptr<Clock> clock_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Window> windows_;
};

}  // namespace spool
