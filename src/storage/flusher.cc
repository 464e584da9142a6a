#include "storage/flusher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "storage/file_util.h"
#include "storage/flush_metrics.h"
#include "storage/log.h"

namespace spool::storage {

FlushMetrics& flush_metrics() {
  static FlushMetrics* m = new FlushMetrics();  // never destroyed: the flusher may run during exit
  return *m;
}

Flusher::~Flusher() { stop(); }

void Flusher::start() {
  std::lock_guard lk(mu_);
  if (running_) return;
  running_ = true;
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void Flusher::stop() {
  {
    std::lock_guard lk(mu_);
    if (!running_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lk(mu_);
  running_ = false;
}

void Flusher::await_durable(std::shared_ptr<Log> log, int64_t last_offset, std::function<void(Status)> done) {
  {
    std::lock_guard lk(mu_);
    if (running_ && !stopping_) {
      waiters_.push_back({std::move(log), last_offset, std::move(done)});
      cv_.notify_one();
      return;
    }
  }
  done(Status::error("flusher is not running", kStorageError));
}

void Flusher::mark_dirty(std::shared_ptr<Log> log) {
  std::lock_guard lk(mu_);
  auto [it, inserted] = dirty_.emplace(log.get(), log);
  if (inserted || log->unflushed_messages() >= log->config().flush_messages) cv_.notify_one();
}

uint64_t Flusher::passes() const {
  std::lock_guard lk(mu_);
  return passes_;
}

std::vector<std::shared_ptr<Log>> Flusher::due_logs_locked(int64_t now, int64_t& next_due) {
  std::vector<std::shared_ptr<Log>> due;
  next_due = INT64_MAX;
  for (auto it = dirty_.begin(); it != dirty_.end();) {
    auto log = it->second.lock();
    if (!log || log->closed() || log->unflushed_messages() <= 0) {
      it = dirty_.erase(it);
      continue;
    }
    auto cfg = log->config();
    int64_t at = INT64_MAX;
    if (log->unflushed_messages() >= cfg.flush_messages) at = now;
    if (cfg.flush_ms != INT64_MAX) at = std::min(at, log->last_flush_ms() + cfg.flush_ms);
    if (at <= now) {
      due.push_back(std::move(log));
      it = dirty_.erase(it);
      continue;
    }
    next_due = std::min(next_due, at);
    ++it;
  }
  return due;
}

void Flusher::run() {
  std::unique_lock lk(mu_);
  for (;;) {
    int64_t next_due = INT64_MAX;
    auto due = due_logs_locked(now_ms(), next_due);
    if (waiters_.empty() && due.empty()) {
      if (stopping_) break;
      int64_t wait_ms = next_due == INT64_MAX ? 1000 : std::clamp<int64_t>(next_due - now_ms(), 1, 1000);
      cv_.wait_for(lk, std::chrono::milliseconds(wait_ms));
      continue;
    }
    std::vector<Waiter> batch;
    batch.swap(waiters_);
    lk.unlock();
    auto retry = pass(std::move(batch), due);
    lk.lock();
    ++passes_;
    // A failing disk must not turn the policy loop into a busy loop.
    if (failed_ && !stopping_) cv_.wait_for(lk, std::chrono::milliseconds(100));
    if (!retry.empty()) {
      waiters_.insert(waiters_.begin(), std::make_move_iterator(retry.begin()), std::make_move_iterator(retry.end()));
    }
  }
}

std::vector<Flusher::Waiter> Flusher::pass(std::vector<Waiter> waiters, const std::vector<std::shared_ptr<Log>>& due) {
  std::set<Log*> seen;
  std::vector<std::shared_ptr<Log>> to_flush;
  for (const auto& w : waiters) {
    if (!w.log->config().durable_writes || w.log->flushed_offset() > w.last_offset) continue;
    if (seen.insert(w.log.get()).second) to_flush.push_back(w.log);
  }
  for (const auto& l : due)
    if (seen.insert(l.get()).second) to_flush.push_back(l);
  std::map<Log*, Status> results;
  failed_ = false;
  auto& metrics = flush_metrics();
  for (const auto& l : to_flush) {
    const auto start = std::chrono::steady_clock::now();
    results[l.get()] = l->flush();
    metrics.flush_ms.observe(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!results[l.get()]) failed_ = true;
  }
  if (!to_flush.empty()) {
    metrics.logs_per_pass.observe(static_cast<double>(to_flush.size()));
    metrics.appends_per_pass.observe(static_cast<double>(waiters.size()));
  }

  std::vector<Waiter> retry;
  for (auto& w : waiters) {
    Status st = Status::ok();
    if (w.log->config().durable_writes && w.log->flushed_offset() <= w.last_offset) {
      auto it = results.find(w.log.get());
      if (it != results.end() && !it->second) {
        st = it->second;
      } else if (w.last_offset >= w.log->log_end_offset()) {
        st = Status::error("offset " + std::to_string(w.last_offset) + " was never appended to " + w.log->dir(),
                           kStorageError);
      } else {
        retry.push_back(std::move(w));  // appended after the snapshot; next pass
        continue;
      }
    }
    w.done(st);
  }
  return retry;
}

}  // namespace spool::storage
