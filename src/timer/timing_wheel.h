// Hierarchical timing wheel (Varghese & Lauck; the design Kafka's purgatory
// uses), with O(1) insert and cancel.
//
// A wheel has wheel_size buckets of tick_ms each and covers
// interval = tick_ms * wheel_size from current_time (always a multiple of
// tick_ms). A task due at t goes to bucket (t / tick_ms) % wheel_size; a task
// beyond the interval goes to an overflow wheel whose tick is this wheel's
// interval, created on demand, so any delay fits in O(log_wheel_size(delay))
// levels. A bucket gets an expiration (the start of its slot) when it gets
// tasks and is then queued in a BucketQueue keyed by that expiration. The
// clock never ticks through empty slots: the owner pops the earliest bucket
// once real time reaches it, advances every level to that time, and re-adds
// the bucket's tasks — they either fall into a finer bucket (cascading down
// from an overflow wheel) or are due and get run.
//
// Ownership: a wheel owns its buckets and its overflow wheel; the queue is
// owned by the caller and shared by all levels.
// Threading: not thread-safe; SystemTimer serialises all access with its lock.
// Failure: none; add() returns false for a task that is already due.
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <utility>
#include <vector>

#include "timer/timer_task.h"
#include "timer/timer_task_list.h"

namespace spool::timer {

// Delay queue of buckets: a min-heap on expiration. A bucket is pushed when
// its expiration changes; an entry whose bucket has since been flushed or
// re-armed for a different slot is stale and skipped.
class BucketQueue {
 public:
  // Returns true if the bucket became the earliest one (a waiting reaper
  // should re-check its deadline).
  bool offer(TimerTaskList* bucket);
  // Earliest live bucket, or nullptr.
  TimerTaskList* peek();
  // Removes and returns the earliest live bucket if its expiration <= now_ms.
  TimerTaskList* poll_due(int64_t now_ms);
  size_t raw_size() const { return heap_.size(); }

 private:
  using Entry = std::pair<int64_t, TimerTaskList*>;
  void drop_stale();
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
};

class TimingWheel {
 public:
  TimingWheel(int64_t tick_ms, int wheel_size, int64_t start_ms, BucketQueue* queue);
  TimingWheel(const TimingWheel&) = delete;
  TimingWheel& operator=(const TimingWheel&) = delete;

  // Links task (task->expiration_ms_ must be set) into the right bucket of
  // this wheel or an overflow wheel, taking the reference. Returns false,
  // leaving task untouched, when it is already due
  // (expiration < current_time + tick_ms).
  bool add(std::shared_ptr<TimerTask>& task);
  // Moves current_time to time_ms truncated to a tick, on every level.
  void advance_clock(int64_t time_ms);
  // Unlinks every task on every level, appending the references to out.
  void drain(std::vector<std::shared_ptr<TimerTask>>& out);

  int64_t tick_ms() const { return tick_ms_; }
  int wheel_size() const { return wheel_size_; }
  int64_t interval() const { return interval_; }
  int64_t current_time() const { return current_time_; }
  const TimingWheel* overflow() const { return overflow_.get(); }
  // Number of levels including this one (1 + overflow depth).
  int levels() const { return 1 + (overflow_ ? overflow_->levels() : 0); }

 private:
  const int64_t tick_ms_;
  const int wheel_size_;
  const int64_t interval_;
  int64_t current_time_;
  BucketQueue* queue_;
  std::unique_ptr<TimerTaskList[]> buckets_;
  std::unique_ptr<TimingWheel> overflow_;
};

}  // namespace spool::timer
