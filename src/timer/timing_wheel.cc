#include "timer/timing_wheel.h"

namespace spool::timer {

bool BucketQueue::offer(TimerTaskList* bucket) {
  TimerTaskList* before = peek();
  heap_.emplace(bucket->expiration(), bucket);
  return before == nullptr || bucket->expiration() < before->expiration();
}

void BucketQueue::drop_stale() {
  while (!heap_.empty() && heap_.top().second->expiration() != heap_.top().first) heap_.pop();
}

TimerTaskList* BucketQueue::peek() {
  drop_stale();
  return heap_.empty() ? nullptr : heap_.top().second;
}

TimerTaskList* BucketQueue::poll_due(int64_t now_ms) {
  TimerTaskList* head = peek();
  if (head == nullptr || head->expiration() > now_ms) return nullptr;
  heap_.pop();
  return head;
}

TimingWheel::TimingWheel(int64_t tick_ms, int wheel_size, int64_t start_ms, BucketQueue* queue)
    : tick_ms_(tick_ms < 1 ? 1 : tick_ms),
      wheel_size_(wheel_size < 2 ? 2 : wheel_size),
      interval_(tick_ms_ * wheel_size_),
      current_time_(start_ms - start_ms % tick_ms_),
      queue_(queue),
      buckets_(new TimerTaskList[wheel_size_]) {}

bool TimingWheel::add(std::shared_ptr<TimerTask>& task) {
  const int64_t expiration = task->expiration_ms_;
  if (expiration < current_time_ + tick_ms_) return false;
  if (expiration < current_time_ + interval_) {
    const int64_t virtual_id = expiration / tick_ms_;
    TimerTaskList& bucket = buckets_[virtual_id % wheel_size_];
    bucket.add(std::move(task));
    // Every task of a bucket lies in the same slot, so the first one sets
    // the expiration and later ones leave it unchanged (no re-queue).
    if (bucket.set_expiration(virtual_id * tick_ms_)) queue_->offer(&bucket);
    return true;
  }
  if (!overflow_) {
    overflow_ = std::make_unique<TimingWheel>(interval_, wheel_size_, current_time_, queue_);
  }
  return overflow_->add(task);
}

void TimingWheel::advance_clock(int64_t time_ms) {
  if (time_ms >= current_time_ + tick_ms_) {
    current_time_ = time_ms - time_ms % tick_ms_;
    if (overflow_) overflow_->advance_clock(current_time_);
  }
}

void TimingWheel::drain(std::vector<std::shared_ptr<TimerTask>>& out) {
  for (int i = 0; i < wheel_size_; ++i) buckets_[i].flush(out);
  if (overflow_) overflow_->drain(out);
}

}  // namespace spool::timer
