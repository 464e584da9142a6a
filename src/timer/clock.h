// Clock: the time source of the timer module, injectable so tests run on a
// fake clock instead of sleeping.
// Threading: now_ms() may be called from any thread. ManualClock is advanced
// explicitly by the test; it never moves on its own.
// Failure: none. Values are milliseconds on a monotonic scale (not wall time).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace spool::timer {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t now_ms() const = 0;
};

// Monotonic: request timeouts must not jump when the wall clock is adjusted.
class SteadyClock final : public Clock {
 public:
  int64_t now_ms() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 0) : now_(start_ms) {}
  int64_t now_ms() const override { return now_.load(std::memory_order_acquire); }
  void advance(int64_t ms) { now_.fetch_add(ms, std::memory_order_acq_rel); }
  void set(int64_t ms) { now_.store(ms, std::memory_order_release); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace spool::timer
