#include "timer/timer_task.h"

namespace spool::timer {

void TimerTask::cancel() {
  // Publish the flag before reading the owner: SystemTimer::add sets the
  // owner first and checks the flag under the timer lock, so one of the two
  // always sees the other and the task can never stay linked after cancel.
  cancelled_.store(true, std::memory_order_seq_cst);
  std::shared_ptr<detail::TaskOwner> owner;
  {
    std::lock_guard<std::mutex> g(owner_mu_);
    owner = owner_;
  }
  // May drop the timer's last reference to *this; nothing touches members
  // after this call.
  if (owner) owner->remove(this);
}

}  // namespace spool::timer
