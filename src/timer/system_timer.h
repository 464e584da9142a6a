// SystemTimer: a thread-safe timer on a hierarchical timing wheel
// (timing_wheel.h). add() and TimerTask::cancel() are O(1) under one short
// lock; advance_clock() sleeps until the earliest non-empty bucket is due (or
// the timeout passes), advances the wheel to it, and runs the due tasks.
//
// Ownership: the timer holds a reference to every scheduled task; stop() does
// not drop them, destruction does (without running them).
// Threading: add/cancel/size from any thread. Due tasks run on the thread that
// calls advance_clock() — the reaper thread started by start(), or the test.
// A task that is already due when added runs on the caller of add(), before
// add() returns. Tasks must therefore be short and must not block, and
// callers of add() must not hold a lock that a task's run() takes.
// Timing: a task with delay d added at time t runs once the clock reads
// >= t + d, and at most one tick later (plus the reaper's wake-up latency):
// due times are rounded up to a whole tick, so a task never fires early.
// Failure: bad options are clamped (tick >= 1, wheel size in [2, 65536]),
// negative delays count as 0, delays beyond ~34 years are capped.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "timer/clock.h"
#include "timer/timer_task.h"

namespace spool::timer {

struct SystemTimerOptions {
  std::string name = "timer";      // for logs and the reaper thread name
  int64_t tick_ms = 1;             // Kafka's purgatory defaults
  int wheel_size = 20;
  std::shared_ptr<Clock> clock;    // monotonic scale; null: system_clock()
};

class SystemTimer {
 public:
  static constexpr int64_t kMaxDelayMs = int64_t{1} << 40;
  static constexpr int64_t kReaperPollMs = 200;

  explicit SystemTimer(SystemTimerOptions options = {});
  ~SystemTimer();
  SystemTimer(const SystemTimer&) = delete;
  SystemTimer& operator=(const SystemTimer&) = delete;

  // Schedules task to run after task->delay_ms() from now. A cancelled task
  // is ignored. Adding a task that is still scheduled re-schedules it.
  void add(std::shared_ptr<TimerTask> task);

  // Waits up to timeout_ms (real time) for the earliest bucket to become due,
  // then advances the wheel and runs every task due by now. Returns true if
  // any bucket was processed. timeout_ms = 0 never blocks (what tests use with
  // a ManualClock).
  bool advance_clock(int64_t timeout_ms);

  // Starts/stops a reaper thread looping on advance_clock(kReaperPollMs).
  // stop() wakes it, joins it, and is idempotent; the destructor calls it.
  void start();
  void stop();

  // Unschedules every task without running it and returns them (shutdown).
  std::vector<std::shared_ptr<TimerTask>> drain();

  // Number of scheduled (linked, not yet due or cancelled) tasks.
  int size() const;
  int64_t now_ms() const;
  // Levels of the wheel hierarchy currently built (for tests).
  int levels() const;

 private:
  class Core;
  void reaper_loop();

  std::shared_ptr<Core> core_;
  std::thread reaper_;
  std::mutex reaper_mu_;
};

}  // namespace spool::timer
