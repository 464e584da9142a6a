#include "net/backpressure.h"

#include <utility>

namespace spool::net {

int64_t RequestMemoryPool::used() const {
  std::lock_guard lk(mu_);
  return used_;
}

bool RequestMemoryPool::try_reserve(int64_t bytes) {
  std::lock_guard lk(mu_);
  if (limit_ > 0 && used_ >= limit_) return false;
  used_ += bytes;
  return true;
}

bool RequestMemoryPool::reserve_or_wait(int64_t bytes, std::function<void()> wake) {
  std::lock_guard lk(mu_);
  if (limit_ <= 0 || used_ < limit_) {
    used_ += bytes;
    return true;
  }
  waiters_.push_back(std::move(wake));
  return false;
}

void RequestMemoryPool::release(int64_t bytes) {
  std::deque<std::function<void()>> wake;
  {
    std::lock_guard lk(mu_);
    used_ -= bytes;
    if (used_ < 0) used_ = 0;  // a caller bug must not wedge every connection
    if (limit_ > 0 && used_ < limit_) wake.swap(waiters_);
  }
  for (auto& w : wake) w();
}

}  // namespace spool::net
