#include "client/producer/record_accumulator.h"

#include <algorithm>

#include "protocol/error_code.h"

namespace spool::client {

using protocol::ErrorCode;

RecordAccumulator::RecordAccumulator(AccumulatorOptions options, std::function<void()> wakeup)
    : options_(std::move(options)),
      clock_(options_.clock ? options_.clock : system_clock()),
      wakeup_(std::move(wakeup)) {}

int64_t RecordAccumulator::retry_backoff(int32_t attempts) const {
  int64_t b = options_.retry_backoff_ms;
  for (int32_t i = 1; i < attempts && b < options_.retry_backoff_max_ms; ++i) b *= 2;
  return std::min(b, std::max(options_.retry_backoff_max_ms, options_.retry_backoff_ms));
}

Result<AppendResult> RecordAccumulator::append(const TopicPartition& tp, int64_t timestamp,
                                               const std::optional<Bytes>& key, const std::optional<Bytes>& value,
                                               const std::vector<RecordHeader>& headers, size_t record_size,
                                               SendCallback& callback, int64_t max_block_ms) {
  AppendResult result;
  std::unique_lock<std::mutex> lock(mu_);
  if (closed_) return close_status_;
  Queue& q = queues_[tp];
  if (q.empty() || q.back()->retry || q.back()->records().closed() ||
      !q.back()->has_room_for(record_size, options_.batch_size)) {
    const size_t capacity = std::max(static_cast<size_t>(options_.batch_size), record::kHeaderSize + record_size);
    const int64_t deadline = clock_->monotonic_ms() + max_block_ms;
    while (used_memory_ > 0 && used_memory_ + static_cast<int64_t>(capacity) > options_.buffer_memory) {
      const int64_t left = deadline - clock_->monotonic_ms();
      if (left <= 0) {
        return Status::error("Failed to allocate " + std::to_string(capacity) +
                                 " bytes within the configured max blocking time " + std::to_string(max_block_ms) +
                                 " ms. Total memory: " + std::to_string(options_.buffer_memory) +
                                 " bytes (buffer.memory).",
                             protocol::to_int(ErrorCode::kRequestTimedOut));
      }
      ++memory_waiters_;
      if (wakeup_) wakeup_();
      memory_cv_.wait_for(lock, std::chrono::milliseconds(std::min<int64_t>(left, 100)));
      --memory_waiters_;
      if (closed_) return close_status_;
    }
    // The queue may have changed while we waited.
    Queue& q2 = queues_[tp];
    if (q2.empty() || q2.back()->retry || q2.back()->records().closed() ||
        !q2.back()->has_room_for(record_size, options_.batch_size)) {
      // The buffer grows with the records (doubling), so an idle partition
      // with one small record holds a few hundred bytes, not batch.size.
      auto batch = std::make_unique<ProducerBatch>(tp, options_.compression, options_.compression_level,
                                                   std::min(capacity, record::kHeaderSize + 4 * record_size),
                                                   clock_->monotonic_ms());
      batch->memory = capacity;
      batch->id = next_id_++;
      incomplete_.insert(batch->id);
      used_memory_ += static_cast<int64_t>(capacity);
      q2.push_back(std::move(batch));
      result.new_batch = true;
    }
  }
  Queue& q3 = queues_[tp];
  const size_t before = q3.back()->size_bytes();
  q3.back()->append(timestamp, key, value, headers, std::move(callback));
  result.record_bytes = q3.back()->size_bytes() - before;
  result.last_full = q3.back()->is_full(options_.batch_size);
  result.batch_full = q3.size() > 1 || result.last_full;
  lock.unlock();
  if ((result.batch_full || result.new_batch) && wakeup_) wakeup_();
  return result;
}

ReadyCheck RecordAccumulator::ready(const MetadataSnapshot& meta, int64_t now) {
  ReadyCheck out;
  std::lock_guard<std::mutex> lock(mu_);
  const bool exhausted = memory_waiters_ > 0;
  for (auto& [tp, q] : queues_) {
    if (q.empty()) continue;
    const Node* leader = meta.leader(tp.topic, tp.partition);
    if (leader == nullptr) {
      out.unknown_leaders = true;
      continue;
    }
    if (out.nodes.count(leader->id)) continue;
    const ProducerBatch& first = *q.front();
    const int64_t backoff = first.retry ? retry_backoff(first.attempts) : 0;
    const bool backing_off = first.retry && now < first.last_attempt_ms + backoff;
    const int64_t waited = now - first.last_attempt_ms;
    const int64_t time_to_wait = backing_off ? backoff : options_.linger_ms;
    const bool full = q.size() > 1 || first.is_full(options_.batch_size);
    const bool expired = waited >= time_to_wait;
    const bool sendable = full || expired || exhausted || closed_ || flushing_ > 0;
    if (sendable && !backing_off) {
      out.nodes.insert(leader->id);
    } else {
      out.next_check_ms = std::min(out.next_check_ms, std::max<int64_t>(time_to_wait - waited, 0));
    }
  }
  return out;
}

std::vector<std::unique_ptr<ProducerBatch>> RecordAccumulator::drain(const MetadataSnapshot& meta, int32_t node,
                                                                     int32_t max_size, int64_t now, DrainGate& gate) {
  std::vector<std::unique_ptr<ProducerBatch>> out;
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Queue*> led;
  for (auto& [tp, q] : queues_) {
    if (q.empty()) continue;
    const Node* leader = meta.leader(tp.topic, tp.partition);
    if (leader != nullptr && leader->id == node) led.push_back(&q);
  }
  if (led.empty()) return out;
  size_t& start = drain_index_[node];
  size_t bytes = 0;
  for (size_t i = 0; i < led.size(); ++i) {
    Queue& q = *led[(start + i) % led.size()];
    ProducerBatch& first = *q.front();
    if (first.retry && now < first.last_attempt_ms + retry_backoff(first.attempts)) continue;
    if (!out.empty() && bytes + first.size_bytes() > static_cast<size_t>(max_size)) {
      start = (start + i) % led.size();  // this partition goes first next time
      return out;
    }
    if (!gate.may_drain(first)) continue;
    std::unique_ptr<ProducerBatch> batch = std::move(q.front());
    q.pop_front();
    gate.on_drain(*batch);
    bytes += batch->size_bytes();
    out.push_back(std::move(batch));
  }
  start = (start + 1) % led.size();
  return out;
}

void RecordAccumulator::reenqueue(std::unique_ptr<ProducerBatch> batch, int64_t now) {
  batch->retry = true;
  batch->last_attempt_ms = now;
  std::lock_guard<std::mutex> lock(mu_);
  Queue& q = queues_[batch->tp()];
  // Retried batches go first, ordered by sequence (new ones have none).
  auto it = q.begin();
  while (it != q.end() && (*it)->retry && (*it)->base_sequence >= 0 && batch->base_sequence >= 0 &&
         (*it)->base_sequence < batch->base_sequence) {
    ++it;
  }
  q.insert(it, std::move(batch));
}

std::vector<std::unique_ptr<ProducerBatch>> RecordAccumulator::expired(int64_t now) {
  std::vector<std::unique_ptr<ProducerBatch>> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [tp, q] : queues_) {
    while (!q.empty() && now - q.front()->created_ms >= options_.delivery_timeout_ms) {
      out.push_back(std::move(q.front()));
      q.pop_front();
    }
  }
  return out;
}

std::vector<std::unique_ptr<ProducerBatch>> RecordAccumulator::abort_all() {
  std::vector<std::unique_ptr<ProducerBatch>> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [tp, q] : queues_) {
    for (auto& b : q) out.push_back(std::move(b));
    q.clear();
  }
  return out;
}

void RecordAccumulator::release(const ProducerBatch& batch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    used_memory_ -= static_cast<int64_t>(batch.memory);
    incomplete_.erase(batch.id);
  }
  memory_cv_.notify_all();
  complete_cv_.notify_all();
}

bool RecordAccumulator::flush(int64_t max_wait_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t upto = next_id_;
  ++flushing_;
  lock.unlock();
  if (wakeup_) wakeup_();
  lock.lock();
  const bool done = complete_cv_.wait_for(lock, std::chrono::milliseconds(max_wait_ms), [&] {
    return incomplete_.empty() || *incomplete_.begin() >= upto;
  });
  --flushing_;
  return done;
}

void RecordAccumulator::close(const Status& why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    closed_ = true;
    close_status_ = why;
  }
  memory_cv_.notify_all();
  if (wakeup_) wakeup_();
}

bool RecordAccumulator::has_incomplete() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !incomplete_.empty();
}

bool RecordAccumulator::has_open_batch(const TopicPartition& tp) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = queues_.find(tp);
  if (it == queues_.end() || it->second.empty()) return false;
  const ProducerBatch& last = *it->second.back();
  return !last.retry && !last.records().closed() && !last.is_full(options_.batch_size);
}

bool RecordAccumulator::has_queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [tp, q] : queues_) {
    if (!q.empty()) return true;
  }
  return false;
}

}  // namespace spool::client
