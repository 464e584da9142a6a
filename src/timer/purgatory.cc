#include "timer/purgatory.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

namespace spool::timer {

namespace {

SystemTimerOptions timer_options(const PurgatoryOptions& o) {
  SystemTimerOptions t;
  t.name = o.name;
  t.tick_ms = o.tick_ms;
  t.wheel_size = o.wheel_size;
  t.clock = o.clock;
  return t;
}

}  // namespace

Purgatory::Purgatory(PurgatoryOptions options)
    : options_(std::move(options)),
      shards_(new Shard[std::max(options_.shards, 1)]),
      shard_count_(static_cast<size_t>(std::max(options_.shards, 1))),
      timer_(timer_options(options_)) {
  if (options_.start_reaper) timer_.start();
}

Purgatory::~Purgatory() { shutdown(false); }

Purgatory::Shard& Purgatory::shard_for(const std::string& key) const {
  return shards_[std::hash<std::string>{}(key) % shard_count_];
}

void Purgatory::watch(const std::string& key, const std::shared_ptr<DelayedOperation>& op) {
  Shard& s = shard_for(key);
  std::lock_guard<std::mutex> g(s.mu);
  s.watchers[key].push_back(op);
}

bool Purgatory::try_complete_else_watch(std::shared_ptr<DelayedOperation> op,
                                        const std::vector<std::string>& keys) {
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
  if (!op->is_completed()) {
    timer_.add(op);
    // Completed between the try and the add: take it out of the wheel again.
    if (op->is_completed()) op->cancel();
    // shutdown() drained the timer concurrently: the op would never fire.
    if (shut_down_.load()) op->run();
  }
  maybe_purge();
  return false;
}

int Purgatory::check_and_complete(const std::string& key) {
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

int Purgatory::watched() const {
  size_t n = 0;
  for (size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard<std::mutex> g(shards_[i].mu);
    for (const auto& [key, ops] : shards_[i].watchers) n += ops.size();
  }
  return static_cast<int>(n);
}

int Purgatory::watched_keys() const {
  size_t n = 0;
  for (size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard<std::mutex> g(shards_[i].mu);
    n += shards_[i].watchers.size();
  }
  return static_cast<int>(n);
}

int Purgatory::delayed() const { return timer_.size(); }

bool Purgatory::advance_clock(int64_t timeout_ms) {
  const bool advanced = timer_.advance_clock(timeout_ms);
  maybe_purge();
  return advanced;
}

void Purgatory::maybe_purge() {
  const int64_t delayed = timer_.size();
  int64_t estimated = estimated_total_.load();
  // The CAS elects one thread per pass.
  if (estimated - delayed > options_.purge_interval &&
      estimated_total_.compare_exchange_strong(estimated, delayed)) {
    purge_completed();
  }
}

int Purgatory::purge_completed() {
  size_t purged = 0;
  for (size_t i = 0; i < shard_count_; ++i) {
    // Completed ops are dropped after the lock is released: their
    // destructors may do arbitrary work.
    std::vector<std::shared_ptr<DelayedOperation>> dropped;
    std::lock_guard<std::mutex> g(shards_[i].mu);
    auto& map = shards_[i].watchers;
    for (auto it = map.begin(); it != map.end();) {
      auto& ops = it->second;
      auto keep = std::stable_partition(ops.begin(), ops.end(), [](const auto& op) { return !op->is_completed(); });
      for (auto d = keep; d != ops.end(); ++d) dropped.push_back(std::move(*d));
      purged += static_cast<size_t>(ops.end() - keep);
      ops.erase(keep, ops.end());
      it = ops.empty() ? map.erase(it) : std::next(it);
    }
  }
  return static_cast<int>(purged);
}

void Purgatory::shutdown(bool expire_pending) {
  if (shut_down_.exchange(true)) return;
  timer_.stop();
  std::vector<std::shared_ptr<TimerTask>> pending = timer_.drain();
  for (size_t i = 0; i < shard_count_; ++i) {
    std::unordered_map<std::string, std::vector<std::shared_ptr<DelayedOperation>>> dropped;
    std::lock_guard<std::mutex> g(shards_[i].mu);
    dropped.swap(shards_[i].watchers);
  }
  if (!expire_pending) return;
  // Every task in this timer is a DelayedOperation (only
  // try_complete_else_watch adds to it); run() is CAS-guarded.
  for (const auto& task : pending) task->run();
}

}  // namespace spool::timer
