// TimerTask: a unit of work that a SystemTimer runs once its delay has passed.
// Ownership: callers hold tasks by std::shared_ptr; while a task is scheduled
// the timer also holds a reference, so a scheduled task stays alive even if
// the caller drops its own.
// Threading: cancel() and is_cancelled() are safe from any thread. run() is
// called by the timer on the thread that advances its clock (the reaper), or
// on the caller of SystemTimer::add when the task is already due.
// Failure: run() must not throw and must be short (see system_timer.h).
// cancel() is sticky: a cancelled task is never scheduled again. It is best
// effort against a run that has already begun; DelayedOperation makes its
// completion exactly-once with its own compare-and-set.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace spool::timer {

class TimerTask;
class TimerTaskList;

namespace detail {

// Link of a task inside a bucket's circular doubly linked list; a bucket's
// sentinel is a ListNode with task == nullptr.
struct ListNode {
  ListNode* prev = this;
  ListNode* next = this;
  TimerTask* task = nullptr;
};

// Whoever currently schedules the task (a SystemTimer's core). cancel() goes
// through it so the unlink happens under the timer's lock.
class TaskOwner {
 public:
  virtual ~TaskOwner() = default;
  virtual void remove(TimerTask* task) = 0;
};

}  // namespace detail

class TimerTask {
 public:
  explicit TimerTask(int64_t delay_ms) : delay_ms_(delay_ms < 0 ? 0 : delay_ms) {}
  virtual ~TimerTask() = default;
  TimerTask(const TimerTask&) = delete;
  TimerTask& operator=(const TimerTask&) = delete;

  int64_t delay_ms() const { return delay_ms_; }
  virtual void run() = 0;

  // Unschedules the task in O(1); it will not be run by the timer afterwards
  // unless its run has already been handed out.
  void cancel();
  bool is_cancelled() const { return cancelled_.load(std::memory_order_acquire); }

 private:
  friend class TimerTaskList;
  friend class TimingWheel;
  friend class SystemTimer;

  const int64_t delay_ms_;
  std::atomic<bool> cancelled_{false};

  // Guarded by owner_mu_. Written by SystemTimer::add, read by cancel().
  std::mutex owner_mu_;
  std::shared_ptr<detail::TaskOwner> owner_;

  // Guarded by the owning timer's lock.
  detail::ListNode node_{};
  TimerTaskList* list_ = nullptr;
  int64_t expiration_ms_ = 0;        // absolute due time (ms)
  std::shared_ptr<TimerTask> self_;  // the timer's reference while linked
};

}  // namespace spool::timer
