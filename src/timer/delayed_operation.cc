#include "timer/delayed_operation.h"

namespace spool::timer {

DelayedOperation::DelayedOperation(int64_t delay_ms, std::shared_ptr<std::recursive_mutex> lock)
    : TimerTask(delay_ms), lock_(lock ? std::move(lock) : std::make_shared<std::recursive_mutex>()) {}

bool DelayedOperation::force_complete() {
  bool expected = false;
  if (!completed_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) return false;
  cancel();  // the timeout is no longer needed
  on_complete();
  return true;
}

bool DelayedOperation::maybe_try_complete() {
  std::lock_guard<std::recursive_mutex> g(*lock_);
  if (is_completed()) return false;
  return try_complete();
}

void DelayedOperation::run() {
  bool expected = false;
  if (!completed_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) return;
  on_expiration();
  on_complete();
}

}  // namespace spool::timer
