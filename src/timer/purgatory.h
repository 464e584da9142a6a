// Purgatory: where delayed operations wait (Kafka's
// DelayedOperationPurgatory). An operation is watched under one or more keys
// (a TopicPartition, a group id, a (group, member) pair...) and sits in a
// timing wheel until its timeout; an event on a key (an append, a high-watermark move, a member
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
// Keys are typed: Purgatory<Key, Hash> with Key a copyable value type with
// == and a hash (default std::hash<Key>). A template rather than one string
// key so that callers name a partition or a member by value (no string built
// per append or wake-up; no encoding two different keys could share, as
// "topic-partition" strings do: topic "a-1" partition 2 and topic "a"
// partition 12 are both "a-12"), and each purgatory takes only its own kind
// of key. The timer half does not depend on the key (PurgatoryTimer,
// purgatory.cc).
//
// Ownership: the purgatory holds references to watched/delayed operations
// until they complete (or until a purge after completion).
// Threading: all public methods are thread-safe. Operation callbacks run on
// the calling thread or on the timer's reaper thread (see delayed_operation.h).
// Failure: an operation with no keys is only timed. After shutdown() an
// operation that cannot complete at once expires at once.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
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

// The key-independent half (timer, purge accounting, shutdown flag);
// purgatory.cc. Not used on its own.
class PurgatoryTimer {
 protected:
  explicit PurgatoryTimer(const PurgatoryOptions& options);

  // Adds a watched-but-incomplete op to the timer (after the watch step of
  // try_complete_else_watch), handling the races with completion and
  // shutdown.
  void add_to_timer(const std::shared_ptr<DelayedOperation>& op);
  // True when a purge pass is due (elects one caller per pass).
  bool purge_due();
  // Stops the reaper and returns the timer's pending tasks.
  std::vector<std::shared_ptr<TimerTask>> stop_timer();

  SystemTimer timer_;
  // Operations watched since the last purge pass (Kafka's
  // estimatedTotalOperations): minus delayed() it estimates completed ops
  // still sitting in watch lists.
  std::atomic<int64_t> estimated_total_{0};
  std::atomic<bool> shut_down_{false};
  const int purge_interval_;
};

template <typename Key, typename Hash = std::hash<Key>>
class Purgatory : private PurgatoryTimer {
 public:
  explicit Purgatory(PurgatoryOptions options = {})
      : PurgatoryTimer(options),
        shard_count_(static_cast<size_t>(std::max(options.shards, 1))),
        shards_(new Shard[shard_count_]) {
    if (options.start_reaper) timer_.start();
  }
  ~Purgatory() { shutdown(false); }
  Purgatory(const Purgatory&) = delete;
  Purgatory& operator=(const Purgatory&) = delete;

  // Returns true if op completed at once (on_complete has run on this thread).
  // Otherwise op is watched under keys and timed by op->delay_ms().
  bool try_complete_else_watch(std::shared_ptr<DelayedOperation> op, const std::vector<Key>& keys) {
    if (!op) return false;
    if (shut_down_.load()) {
      if (op->maybe_try_complete()) return true;
      op->run();  // nobody would ever complete it: expire it now
      return false;
    }
    // Trying once per key would cost O(keys^2) for a multi-partition fetch; one
    // try, watch all, one more try catches everything that raced the watch.
    const bool completed = op->try_complete_or_else([&] {
      for (const auto& key : keys) watch(key, op);
      if (!keys.empty()) estimated_total_.fetch_add(1);
    });
    if (completed) return true;
    if (!op->is_completed()) add_to_timer(op);
    maybe_purge();
    return false;
  }

  // Retries the operations watched under key; returns how many this call
  // completed.
  int check_and_complete(const Key& key) {
    Shard& s = shard_for(key);
    std::vector<std::shared_ptr<DelayedOperation>> snapshot;
    {
      std::lock_guard<std::mutex> g(s.mu);
      auto it = s.watchers.find(key);
      if (it == s.watchers.end()) return 0;
      snapshot = it->second;
    }
    // Tried outside the shard lock: try_complete may be slow-ish and may take
    // the op lock, which try_complete_else_watch holds while it takes ours.
    int completed = 0;
    for (const auto& op : snapshot) {
      if (!op->is_completed() && op->maybe_try_complete()) ++completed;
    }
    std::lock_guard<std::mutex> g(s.mu);
    auto it = s.watchers.find(key);
    if (it != s.watchers.end()) {
      std::erase_if(it->second, [](const auto& op) { return op->is_completed(); });
      if (it->second.empty()) s.watchers.erase(it);
    }
    return completed;
  }

  // Watch-list entries over all keys (an op under 3 keys counts 3), including
  // completed ones not yet purged.
  int watched() const {
    size_t n = 0;
    for (size_t i = 0; i < shard_count_; ++i) {
      std::lock_guard<std::mutex> g(shards_[i].mu);
      for (const auto& [key, ops] : shards_[i].watchers) n += ops.size();
    }
    return static_cast<int>(n);
  }
  // Operations waiting in the timer.
  int delayed() const { return timer_.size(); }
  // Keys with a non-empty watch list.
  int watched_keys() const {
    size_t n = 0;
    for (size_t i = 0; i < shard_count_; ++i) {
      std::lock_guard<std::mutex> g(shards_[i].mu);
      n += shards_[i].watchers.size();
    }
    return static_cast<int>(n);
  }

  // One reaper step for tests without the reaper thread (see
  // SystemTimer::advance_clock), followed by the purge check.
  bool advance_clock(int64_t timeout_ms) {
    const bool advanced = timer_.advance_clock(timeout_ms);
    maybe_purge();
    return advanced;
  }
  // Removes completed operations from every watch list now; returns how many
  // entries were removed.
  int purge_completed() {
    size_t purged = 0;
    for (size_t i = 0; i < shard_count_; ++i) {
      // Completed ops are dropped after the lock is released: their
      // destructors may do arbitrary work.
      std::vector<std::shared_ptr<DelayedOperation>> dropped;
      std::lock_guard<std::mutex> g(shards_[i].mu);
      auto& map = shards_[i].watchers;
      for (auto it = map.begin(); it != map.end();) {
        auto& ops = it->second;
        auto keep =
            std::stable_partition(ops.begin(), ops.end(), [](const auto& op) { return !op->is_completed(); });
        for (auto d = keep; d != ops.end(); ++d) dropped.push_back(std::move(*d));
        purged += static_cast<size_t>(ops.end() - keep);
        ops.erase(keep, ops.end());
        it = ops.empty() ? map.erase(it) : std::next(it);
      }
    }
    return static_cast<int>(purged);
  }

  // Stops the reaper and empties the purgatory. With expire_pending, every
  // pending operation expires now on this thread (on_expiration +
  // on_complete: clients get their answer before the connections close);
  // otherwise they are dropped without completing. Idempotent.
  void shutdown(bool expire_pending = true) {
    if (shut_down_.exchange(true)) return;
    std::vector<std::shared_ptr<TimerTask>> pending = stop_timer();
    for (size_t i = 0; i < shard_count_; ++i) {
      Watchers dropped;
      std::lock_guard<std::mutex> g(shards_[i].mu);
      dropped.swap(shards_[i].watchers);
    }
    if (!expire_pending) return;
    // Every task in this timer is a DelayedOperation (only
    // try_complete_else_watch adds to it); run() is CAS-guarded.
    for (const auto& task : pending) task->run();
  }

 private:
  using Watchers = std::unordered_map<Key, std::vector<std::shared_ptr<DelayedOperation>>, Hash>;
  struct Shard {
    mutable std::mutex mu;
    Watchers watchers;
  };

  Shard& shard_for(const Key& key) const { return shards_[Hash{}(key) % shard_count_]; }
  void watch(const Key& key, const std::shared_ptr<DelayedOperation>& op) {
    Shard& s = shard_for(key);
    std::lock_guard<std::mutex> g(s.mu);
    s.watchers[key].push_back(op);
  }
  void maybe_purge() {
    if (purge_due()) purge_completed();
  }

  const size_t shard_count_;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace spool::timer
