// ControllerEventManager: one queue, one thread (Kafka's ControllerEventThread).
//
// Contract
// - put() enqueues from any thread (store watch callbacks, the channel, the
//   request handlers) and never blocks on the processor; it is the ONLY thing
//   those threads may do. Events are processed one at a time, in order, on the
//   event thread, so controller state needs no locks.
// - clear_and_put() drops (preempts) everything queued, then enqueues: Kafka's
//   treatment of session expiry.
// - shutdown() is bounded: queued events are preempted (callbacks answered
//   NOT_CONTROLLER), the event in progress finishes, the thread is joined.
//   It returns false if that took longer than the timeout (the in-progress
//   event's store calls are bounded by the store's own timeouts). After
//   shutdown, put() preempts the event at once.
// - Without start() nothing runs by itself: run_pending() processes the queue
//   on the calling thread (deterministic unit tests).
// Threading: thread-safe; the processor runs on exactly one thread at a time.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "cluster/controller/controller_events.h"

namespace spool::cluster::controller {

class ControllerEventManager {
 public:
  using Processor = std::function<void(ControllerEvent& event)>;

  explicit ControllerEventManager(Processor processor);
  ~ControllerEventManager();  // shutdown(5 s) if still running
  ControllerEventManager(const ControllerEventManager&) = delete;
  ControllerEventManager& operator=(const ControllerEventManager&) = delete;

  void start();
  bool shutdown(std::chrono::milliseconds timeout = std::chrono::seconds(5));

  void put(ControllerEvent event);
  void clear_and_put(ControllerEvent event);

  // Manual mode only (not started): processes queued events, including those
  // they enqueue, until the queue is empty. Returns how many ran.
  size_t run_pending();
  // Started mode: waits until the queue is empty and no event is running.
  bool wait_idle(std::chrono::milliseconds timeout);

  size_t queue_size() const;
  bool on_event_thread() const { return std::this_thread::get_id() == thread_id_.load(); }

 private:
  void loop();

  Processor processor_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  std::deque<ControllerEvent> queue_;
  bool started_ = false;
  bool stopping_ = false;
  bool busy_ = false;
  bool exited_ = false;
  std::thread thread_;
  std::atomic<std::thread::id> thread_id_{};
};

}  // namespace spool::cluster::controller
