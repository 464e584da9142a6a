// TimerTaskList: one bucket of a timing wheel — a circular doubly linked list
// of tasks around a sentinel, so add and remove are O(1) with no search.
// The bucket's expiration is the start of the time slot it currently stands
// for; it is set when the bucket receives tasks and reset to -1 when flushed.
// Ownership: a linked task is kept alive by its self_ reference; unlinking
// hands that reference back to the caller, who drops it outside the timer
// lock (a task's destructor may do arbitrary work).
// Threading: not thread-safe; guarded by the owning SystemTimer's lock.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "timer/timer_task.h"

namespace spool::timer {

class TimerTaskList {
 public:
  TimerTaskList() { root_.task = nullptr; }
  ~TimerTaskList();
  TimerTaskList(const TimerTaskList&) = delete;
  TimerTaskList& operator=(const TimerTaskList&) = delete;

  // Links task at the tail. The task must not be linked in any list.
  void add(std::shared_ptr<TimerTask> task);
  // Unlinks task if it is in this list; returns the list's reference to it
  // (null if it was not here).
  std::shared_ptr<TimerTask> remove(TimerTask* task);
  // Unlinks every task, appending the references to out, and resets the
  // expiration so the bucket can stand for a later slot.
  void flush(std::vector<std::shared_ptr<TimerTask>>& out);
  // Same, handing each reference to f(std::shared_ptr<TimerTask>&&) as it is
  // unlinked: one pass over the (cache-cold) nodes instead of two.
  template <typename F>
  void flush_each(F&& f) {
    while (root_.next != &root_) f(remove(root_.next->task));
    expiration_ms_ = -1;
  }

  // Returns true if the expiration changed, i.e. the bucket must be (re)queued.
  bool set_expiration(int64_t expiration_ms) {
    bool changed = expiration_ms_ != expiration_ms;
    expiration_ms_ = expiration_ms;
    return changed;
  }
  int64_t expiration() const { return expiration_ms_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  detail::ListNode root_;  // sentinel: root_.next is the head, root_.prev the tail
  size_t size_ = 0;
  int64_t expiration_ms_ = -1;
};

}  // namespace spool::timer
