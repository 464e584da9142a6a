// RequestMemoryPool: the broker-wide bound on bytes of requests read but not
// yet handled (Kafka's queued.max.request.bytes and its SimpleMemoryPool).
//
// A connection reserves a frame's size once it knows it (before allocating
// the frame) and releases it when the handler has answered; while the pool
// is exhausted the connection stops reading and parks a wake-up callback,
// so a burst of large requests on many connections waits in the peers'
// socket buffers instead of in broker memory. Non-strict like Kafka's pool:
// a reservation succeeds while anything is left, so a single request larger
// than the whole pool still gets through (alone) and nothing deadlocks.
// A limit <= 0 means unbounded (Kafka's default -1): reserve always succeeds.
//
// Threading: every member is safe from any thread. Wake-up callbacks run on
// the thread that released memory, outside the pool's lock; they must only
// post work (e.g. to the parked connection's reactor), never block.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

namespace spool::net {

class RequestMemoryPool {
 public:
  explicit RequestMemoryPool(int64_t limit_bytes) : limit_(limit_bytes) {}
  RequestMemoryPool(const RequestMemoryPool&) = delete;
  RequestMemoryPool& operator=(const RequestMemoryPool&) = delete;

  bool bounded() const { return limit_ > 0; }
  int64_t limit() const { return limit_; }
  int64_t used() const;

  // Takes `bytes` if the pool is not exhausted (used < limit); else false.
  bool try_reserve(int64_t bytes);
  // Like try_reserve, but on failure parks `wake` (called once, when memory
  // is next released) and returns false. A true return parks nothing.
  bool reserve_or_wait(int64_t bytes, std::function<void()> wake);
  // Returns bytes and wakes every parked waiter (each retries; those that
  // lose the race park again), oldest first.
  void release(int64_t bytes);

 private:
  const int64_t limit_;
  mutable std::mutex mu_;
  int64_t used_ = 0;
  std::deque<std::function<void()>> waiters_;
};

}  // namespace spool::net
