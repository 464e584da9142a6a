// AdminExecutor: the one thread that runs the broker's topic lifecycle work
// (CreateTopics, DeleteTopics, CreatePartitions, AlterConfigs,
// IncrementalAlterConfigs, and the auto-creation of topics by Metadata,
// FindCoordinator and AddOffsetsToTxn), so that a slow step of that work (a
// metadata-store round trip, creating partition directories) never blocks a
// reactor thread. Handlers validate on the reactor, submit the rest, and
// answer from the job through the request's Responder (thread-safe; the
// connection still sends its answers in request order).
//
// Ordering: jobs run one at a time, in submission order (FIFO), so two
// lifecycle requests see each other's effects in the order they arrived.
// Bounded: at most Options::max_queued jobs wait; a submit beyond that fails.
// Failure: a job that cannot run has its `fail` called instead of `work`,
// with a Status carrying a Kafka code:
//   * queue full      -> REQUEST_TIMED_OUT  (on the submitting thread, before
//                        submit() returns)
//   * stopped         -> NOT_CONTROLLER ("broker shutting down"; on the
//                        submitting thread for a submit after stop(), on the
//                        thread calling stop() for a job still queued then)
// Exactly one of work / fail runs per submitted job. An exception escaping a
// job is caught and logged (the job must answer its request itself before
// throwing; the executor cannot know what was answered).
// Threading: submit/stop/queued from any thread. stop() lets the running job
// finish, fails the queued ones, joins the thread; idempotent, and the
// destructor calls it. A job must not call stop() (it would wait for itself:
// refused with an error log).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "util/status.h"

namespace spool::broker {

class AdminExecutor {
 public:
  struct Options {
    std::string name = "admin";  // thread name and log prefix
    size_t max_queued = 1024;    // values < 1 act as 1
  };
  using Work = std::function<void()>;
  using Fail = std::function<void(const Status&)>;

  AdminExecutor() : AdminExecutor(Options{}) {}
  explicit AdminExecutor(Options options);  // starts the thread
  ~AdminExecutor();
  AdminExecutor(const AdminExecutor&) = delete;
  AdminExecutor& operator=(const AdminExecutor&) = delete;

  // Queues `work` (named `what` in logs). Returns false when it was refused;
  // `fail` has then already run on this thread.
  bool submit(std::string what, Work work, Fail fail);
  void stop();

  size_t queued() const;                 // jobs waiting (not the running one)
  std::thread::id thread_id() const { return thread_.get_id(); }
  bool on_executor_thread() const { return std::this_thread::get_id() == thread_id(); }

 private:
  struct Job {
    std::string what;
    Work work;
    Fail fail;
  };
  void loop();

  const Options options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::mutex stop_mu_;  // serializes stop() callers around the join
  std::thread thread_;
};

}  // namespace spool::broker
