// SerialExecutor: one named thread that runs posted closures one at a time,
// in posting order. For work that must not run on the posting thread
// because of what that thread may hold: a delayed operation completes under
// its own lock, so a completion that takes another lock (a coordinator's) is
// posted here instead of run inline (see ReplicaManager::run_off_lock).
//
// Unbounded: post() never blocks and never refuses while running.
// Threading: post/stop from any thread. stop() runs what is queued, then
// joins; idempotent, called by the destructor. A closure posted after stop()
// (or from a closure during stop) runs inline on the posting thread: by then
// the broker is shutting down and nothing waits on the locks involved. A
// closure must not call stop(). An exception escaping a closure is logged.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace spool {

class SerialExecutor {
 public:
  explicit SerialExecutor(std::string name);
  ~SerialExecutor();
  SerialExecutor(const SerialExecutor&) = delete;
  SerialExecutor& operator=(const SerialExecutor&) = delete;

  void post(std::function<void()> fn);
  void stop();

 private:
  void loop();
  static void run(const std::string& name, const std::function<void()>& fn);

  const std::string name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace spool
