// Purgatory: where delayed operations wait (Kafka's
// DelayedOperationPurgatory). An operation is watched under one or more keys
// ("topic-partition", a group id, ...) and sits in a timing wheel until its
// timeout; an event on a key (an append, a high-watermark move, a member
// joining) calls check_and_complete(key), which retries the operations
// watched there.
//
// try_complete_else_watch follows Kafka: try; if not done, watch every key and
// try again under the operation's lock (so an event between the two tries is
// never missed); if still not done, add it to the timer. Watcher lists are
// sharded by key hash, each shard under its own lock, so unrelated partitions
// do not contend. Operations completed through another key linger in a list
// until that key is checked or a purge pass runs: once more than
// purge_interval operations have been watched since the last pass beyond
// those still delayed, the next call to try_complete_else_watch (or
// advance_clock) sweeps every shard.
//
// Ownership: the purgatory holds references to watched/delayed operations
// until they complete (or until a purge after completion).
// Threading: all public methods are thread-safe. Operation callbacks run on
// the calling thread or on the timer's reaper thread (see delayed_operation.h).
// Failure: an operation with no keys is only timed. After shutdown() an
// operation that cannot complete at once expires at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "timer/clock.h"
#include "timer/delayed_operation.h"
#include "timer/system_timer.h"

namespace spool::timer {

struct PurgatoryOptions {
  std::string name = "purgatory";  // "Fetch", "Produce", ...
  int purge_interval = 1000;        // Kafka's *.purgatory.purge.interval.requests
  int shards = 512;
  int64_t tick_ms = 1;
  int wheel_size = 20;
  std::shared_ptr<Clock> clock;     // monotonic scale; null: system_clock()
  bool start_reaper = true;         // false in tests: drive advance_clock() by hand
};

class Purgatory {
 public:
  explicit Purgatory(PurgatoryOptions options = {});
  ~Purgatory();  // shutdown(false)
  Purgatory(const Purgatory&) = delete;
  Purgatory& operator=(const Purgatory&) = delete;

  // Returns true if op completed at once (on_complete has run on this thread).
  // Otherwise op is watched under keys and timed by op->delay_ms().
  bool try_complete_else_watch(std::shared_ptr<DelayedOperation> op, const std::vector<std::string>& keys);

  // Retries the operations watched under key; returns how many this call
  // completed.
  int check_and_complete(const std::string& key);

  // Watch-list entries over all keys (an op under 3 keys counts 3), including
  // completed ones not yet purged.
  int watched() const;
  // Operations waiting in the timer.
  int delayed() const;
  // Keys with a non-empty watch list.
  int watched_keys() const;

  // One reaper step for tests without the reaper thread (see
  // SystemTimer::advance_clock), followed by the purge check.
  bool advance_clock(int64_t timeout_ms);
  // Removes completed operations from every watch list now; returns how many
  // entries were removed.
  int purge_completed();

  // Stops the reaper and empties the purgatory. With expire_pending, every
  // pending operation expires now on this thread (on_expiration +
  // on_complete: clients get their answer before the connections close);
  // otherwise they are dropped without completing. Idempotent.
  void shutdown(bool expire_pending = true);

 private:
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<std::string, std::vector<std::shared_ptr<DelayedOperation>>> watchers;
  };

  Shard& shard_for(const std::string& key) const;
  void watch(const std::string& key, const std::shared_ptr<DelayedOperation>& op);
  void maybe_purge();

  const PurgatoryOptions options_;
  std::unique_ptr<Shard[]> shards_;
  size_t shard_count_;
  SystemTimer timer_;
  // Operations watched since the last purge pass (Kafka's
  // estimatedTotalOperations): minus delayed() it estimates completed ops
  // still sitting in watch lists.
  std::atomic<int64_t> estimated_total_{0};
  std::atomic<bool> shut_down_{false};
};

}  // namespace spool::timer
