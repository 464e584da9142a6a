// ConsumerLoop: the native consumer's I/O loop. One thread owns every piece
// of consumer state (subscription, positions, fetch buffer and sessions,
// group membership) and runs run_once() over and over; each pass:
//   1. runs what arrived in the mailbox: the RequestSender's callbacks only
//      post their answers here, and the application's calls (Consumer's
//      methods) post closures and wait for them;
//   2. keeps the metadata's topic list in line with the subscription (a
//      regex subscription asks for every topic and re-matches the names),
//      refreshes metadata when due, and on a new leader epoch moves the
//      partition's position to validation (truncation detection);
//   3. gives partitions without a position one: the group's committed
//      offset (through the coordinator), else auto.offset.reset;
//   4. runs the group coordinator (join, sync, heartbeat, commits);
//   5. sends ListOffsets resets, OffsetForLeaderEpoch validations and the
//      Fetch requests.
// Heartbeats therefore keep going while the application is busy between
// polls; max.poll.interval.ms is enforced by the coordinator.
//
// Threading: run_once() and the accessors belong to the loop thread (or to
// a test that drives run_once() itself, without start()). post(), call(),
// wake() and the progress counter may be used from any thread; call() runs
// its function on the loop and waits (inline when the loop is not running).
// Failure: errors of background work are kept for the next poll()
// (take_error()).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "client/client_metadata.h"
#include "client/consumer/consumer_config.h"
#include "client/consumer/consumer_context.h"
#include "client/consumer/consumer_coordinator.h"
#include "client/consumer/fetcher.h"
#include "client/consumer/offset_requests.h"
#include "client/consumer/subscription_state.h"

namespace spool::client {

// The configured assignors, by name (consumer_config.h's names).
std::vector<std::unique_ptr<PartitionAssignor>> make_assignors(const std::vector<std::string>& names);

class ConsumerLoop {
 public:
  ConsumerLoop(ConsumerConfig config, std::shared_ptr<Clock> clock, RequestSender& network);
  ~ConsumerLoop();
  ConsumerLoop(const ConsumerLoop&) = delete;
  ConsumerLoop& operator=(const ConsumerLoop&) = delete;

  // One pass (see above); returns how long the loop may sleep.
  int64_t run_once();
  void start();
  void stop();

  void post(std::function<void()> fn);
  void wake();
  template <class F>
  auto call(F fn) -> decltype(fn());
  // Bumped by every event the application may be waiting for (records,
  // rebalance events, errors, answers).
  uint64_t progress() const;
  void wait_progress(uint64_t seen, int64_t timeout_ms);

  // Loop thread:
  const ConsumerConfig& config() const { return config_; }
  ConsumerContext& ctx() { return ctx_; }
  ClientMetadata& metadata() { return metadata_; }
  SubscriptionState& subscriptions() { return subscriptions_; }
  Fetcher& fetcher() { return fetcher_; }
  OffsetRequests& offsets() { return offsets_; }
  ConsumerCoordinator* coordinator() { return coordinator_.get(); }
  // The first error of the background work, once.
  Status take_error();

 private:
  void run_mailbox();
  void sync_metadata_topics();
  void check_leader_epochs();
  void initialize_positions();
  void notify_progress();

  ConsumerConfig config_;
  std::shared_ptr<Clock> clock_;
  RequestSender& network_;
  ClientMetadata metadata_;
  SubscriptionState subscriptions_;
  ConsumerContext ctx_;
  Fetcher fetcher_;
  OffsetRequests offsets_;
  std::unique_ptr<ConsumerCoordinator> coordinator_;
  uint64_t seen_metadata_version_ = 0;
  Status error_;

  mutable std::mutex mu_;
  std::condition_variable cv_;          // the loop's wait
  std::condition_variable progress_cv_; // the application's wait
  std::deque<std::function<void()>> mailbox_;
  bool woken_ = false;
  bool stopping_ = false;
  uint64_t progress_ = 0;
  std::thread thread_;
  std::thread::id loop_thread_id_;
};

template <class F>
auto ConsumerLoop::call(F fn) -> decltype(fn()) {
  using T = decltype(fn());
  bool running = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running = thread_.joinable() && !stopping_;
  }
  if (!running || std::this_thread::get_id() == loop_thread_id_) return fn();
  auto task = std::make_shared<std::packaged_task<T()>>(std::move(fn));
  auto future = task->get_future();
  post([task] { (*task)(); });
  return future.get();
}

}  // namespace spool::client
