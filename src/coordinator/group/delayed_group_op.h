// DelayedGroupOp: the coordinator's timers (Kafka's DelayedJoin,
// InitialDelayedJoin, DelayedHeartbeat) as one delayed operation driven by
// two closures: `can_complete` (checked under the group lock when the
// purgatory retries the op) and `done(expired)` (runs exactly once).
// Ownership: the purgatory/timer hold the op; closures keep the group alive.
// Threading: done() may run on a request thread (inside try_complete, with
// the group lock held) or on the timer's reaper (without it), so it must take
// the group lock itself (recursive).
#pragma once

#include <functional>
#include <memory>
#include <mutex>

#include "timer/delayed_operation.h"

namespace spool::coordinator {

class DelayedGroupOp final : public timer::DelayedOperation {
 public:
  DelayedGroupOp(int64_t delay_ms, std::shared_ptr<std::recursive_mutex> lock, std::function<bool()> can_complete,
                 std::function<void(bool expired)> done)
      : DelayedOperation(delay_ms, std::move(lock)), can_complete_(std::move(can_complete)), done_(std::move(done)) {}

 protected:
  bool try_complete() override { return can_complete_ && can_complete_() && force_complete(); }
  void on_expiration() override { expired_ = true; }
  void on_complete() override {
    auto f = std::move(done_);
    done_ = nullptr;
    can_complete_ = nullptr;  // drops the closure's references early
    if (f) f(expired_);
  }

 private:
  std::function<bool()> can_complete_;
  std::function<void(bool)> done_;
  bool expired_ = false;
};

}  // namespace spool::coordinator
