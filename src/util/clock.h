// Clock: the one injectable time source of Spool. Two scales, both in
// milliseconds:
//  * monotonic_ms() for durations and timeouts (purgatory deadlines, session
//    and idle timeouts, eviction ages): never jumps when the wall clock is
//    adjusted; its epoch is arbitrary, so compare its values only with each
//    other;
//  * wall_ms() for timestamps that leave the process or outlive it (record
//    CreateTime, commit and state timestamps, transaction start times):
//    milliseconds since the Unix epoch, may jump.
// SystemClock reads the real clocks; ManualClock never moves on its own and
// is advanced by the test (both scales together, or one set alone to model a
// wall-clock jump). Components take a std::shared_ptr<Clock> in their
// options; null means system_clock().
//
// Threading: every method may be called from any thread (ManualClock's
// values are atomics). Failure: none.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

namespace spool {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t monotonic_ms() const = 0;
  virtual int64_t wall_ms() const = 0;
  // The timer module's name for monotonic_ms().
  int64_t now_ms() const { return monotonic_ms(); }
};

class SystemClock final : public Clock {
 public:
  int64_t monotonic_ms() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  int64_t wall_ms() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// The process-wide real clock (never null, never destroyed before main ends).
inline const std::shared_ptr<Clock>& system_clock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<SystemClock>();
  return clock;
}

// `c` if set, else the real clock: the default of every clock option.
inline std::shared_ptr<Clock> clock_or_system(std::shared_ptr<Clock> c) {
  return c ? std::move(c) : system_clock();
}

// Wall-clock milliseconds since the Unix epoch from the real clock, for code
// with no time-dependent behaviour worth faking (file timestamps, log lines).
inline int64_t wall_clock_ms() { return system_clock()->wall_ms(); }

// std::chrono::steady_clock nanoseconds since its epoch, for request latency
// metrics: finer than monotonic_ms and never faked, so the stamps net and
// the broker take of one request (net/response.h ResponseTiming) compare.
inline int64_t steady_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class ManualClock final : public Clock {
 public:
  // Both scales start at `start_ms` unless a separate wall start is given.
  explicit ManualClock(int64_t start_ms = 0) : ManualClock(start_ms, start_ms) {}
  ManualClock(int64_t monotonic_start_ms, int64_t wall_start_ms)
      : monotonic_(monotonic_start_ms), wall_(wall_start_ms) {}

  int64_t monotonic_ms() const override { return monotonic_.load(std::memory_order_acquire); }
  int64_t wall_ms() const override { return wall_.load(std::memory_order_acquire); }

  // Moves both scales forward by ms (time passing).
  void advance(int64_t ms) {
    monotonic_.fetch_add(ms, std::memory_order_acq_rel);
    wall_.fetch_add(ms, std::memory_order_acq_rel);
  }
  // Moves the monotonic scale to ms and the wall scale by the same amount
  // (time passing, or going back in a test). Not atomic across the scales.
  void set(int64_t ms) { advance(ms - monotonic_ms()); }
  // Sets the wall scale only (an NTP step or an operator's date change).
  void set_wall(int64_t ms) { wall_.store(ms, std::memory_order_release); }

 private:
  std::atomic<int64_t> monotonic_;
  std::atomic<int64_t> wall_;
};

}  // namespace spool
