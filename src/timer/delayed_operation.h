// DelayedOperation: a request that waits until a condition holds or a
// timeout passes (Kafka's DelayedOperation): a fetch waiting for min.bytes, a
// produce waiting for acks, a group join waiting for members.
//
// Lifecycle: completion happens exactly once, by whichever comes first of
//   * try_complete() finding the condition met and calling force_complete(),
//   * someone calling force_complete() directly,
//   * the timer expiring it (run()): on_expiration() then on_complete().
// A compare-and-set on `completed_` picks the single winner, so on_complete()
// runs exactly once even when completion and expiry race.
//
// Ownership: held by std::shared_ptr (the purgatory's watcher lists and the
// timer keep references until completion).
// Threading: try_complete() is only called through maybe_try_complete() or
// try_complete_or_else(), under the operation's lock, so two threads never
// evaluate the condition at once. on_complete()/on_expiration() run on
// whichever thread won the race: a request or appending thread (inside
// try_complete, so under the op's lock), a thread calling force_complete()
// directly, or the timer's reaper (expiry, without the op's lock). They must
// be short and must not block, and may call into a purgatory (its shard locks
// are never held while an op's lock is taken). The lock may be shared by
// several operations (e.g. one per consumer group); it is recursive so a
// caller holding it may still call into the purgatory.
// Lifetime: callers of force_complete()/maybe_try_complete() must hold a
// shared_ptr to the operation (completion drops the timer's reference).
// Failure: callbacks must not throw.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "timer/timer_task.h"

namespace spool::timer {

class DelayedOperation : public TimerTask {
 public:
  explicit DelayedOperation(int64_t delay_ms, std::shared_ptr<std::recursive_mutex> lock = nullptr);

  // Completes the operation if nobody has yet: cancels its timeout and runs
  // on_complete(). Returns true only for the caller that completed it.
  bool force_complete();
  bool is_completed() const { return completed_.load(std::memory_order_acquire); }

  // try_complete() under the operation's lock; false if already completed.
  bool maybe_try_complete();

  // Used by the purgatory: try; if not complete run `watch` and try again,
  // all under the lock (Kafka's safeTryCompleteOrElse). Returns whether the
  // operation completed.
  template <typename F>
  bool try_complete_or_else(F&& watch) {
    std::lock_guard<std::recursive_mutex> g(*lock_);
    if (is_completed()) return false;
    if (try_complete()) return true;
    watch();
    return !is_completed() && try_complete();
  }

  // Timer expiry. Not for callers.
  void run() final;

 protected:
  // Checks the completion condition; if met, calls force_complete() and
  // returns its result.
  virtual bool try_complete() = 0;
  // Runs exactly once, on completion or expiry (send the response here).
  virtual void on_complete() = 0;
  // Runs once, before on_complete(), when the operation timed out.
  virtual void on_expiration() {}

 private:
  std::atomic<bool> completed_{false};
  std::shared_ptr<std::recursive_mutex> lock_;
};

}  // namespace spool::timer
