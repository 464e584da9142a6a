#include "client/producer/idempotence_state.h"

#include <spdlog/spdlog.h>

namespace spool::client {

void IdempotenceState::set_producer_id(int64_t id, int16_t epoch) {
  std::lock_guard<std::mutex> lock(id_mu_);
  producer_id_ = id;
  epoch_ = epoch;
}

void IdempotenceState::reset_producer_id() {
  std::lock_guard<std::mutex> lock(id_mu_);
  producer_id_ = -1;
  epoch_ = -1;
}

bool IdempotenceState::may_drain(const ProducerBatch& first) {
  Partition& p = part(first.tp());
  if (!enabled_) return max_in_flight_ > 1 || p.in_flight == 0;  // max.in.flight=1 keeps order
  if (gate_ && !gate_(first.tp())) return false;
  const int64_t id = producer_id();
  const int16_t ep = epoch();
  if (id < 0) return false;
  if (first.base_sequence >= 0) {
    // A retry: alone, so retries leave in sequence order (the queue keeps it).
    return p.in_flight == 0;
  }
  const bool current = p.producer_id == id && p.epoch == ep;
  if (!current) {
    if (p.in_flight > 0) return false;  // the old epoch's batches first
    adopt(p);
  }
  p.rewrite = false;  // its renumbered retries (they queue first) are gone
  return p.in_flight < max_in_flight_;
}

void IdempotenceState::adopt(Partition& p) const {
  p.producer_id = producer_id();
  p.epoch = epoch();
  p.next_sequence = 0;
  p.last_acked = -1;
}

void IdempotenceState::on_drain(ProducerBatch& batch) {
  Partition& p = part(batch.tp());
  ++p.in_flight;
  if (!enabled_) return;
  if (batch.base_sequence >= 0) {
    const int64_t id = producer_id();
    const int16_t epoch = this->epoch();
    const bool stale = batch.producer_id != id || batch.producer_epoch != epoch;
    if (!p.rewrite || !stale) return;  // resent exactly as before: the broker drops a copy
    if (p.producer_id != id || p.epoch != epoch) adopt(p);
    batch.sequence_reset = true;
  }
  batch.producer_id = p.producer_id;
  batch.producer_epoch = p.epoch;
  batch.base_sequence = p.next_sequence;
  const int64_t next = static_cast<int64_t>(p.next_sequence) + batch.record_count();
  p.next_sequence = static_cast<int32_t>(next > INT32_MAX ? next - INT32_MAX - 1 : next);  // wraps as Kafka's
}

void IdempotenceState::on_acked(const ProducerBatch& batch) {
  Partition& p = part(batch.tp());
  if (p.in_flight > 0) --p.in_flight;
  if (enabled_ && batch.producer_id == p.producer_id && batch.producer_epoch == p.epoch) {
    p.last_acked = std::max(p.last_acked, batch.base_sequence + batch.record_count() - 1);
  }
}

void IdempotenceState::on_failed(const ProducerBatch& batch) {
  Partition& p = part(batch.tp());
  if (p.in_flight > 0) --p.in_flight;
}

bool IdempotenceState::is_next_in_line(const ProducerBatch& batch) const {
  auto it = parts_.find(batch.tp());
  if (it == parts_.end()) return true;
  return batch.producer_epoch == it->second.epoch && batch.base_sequence == it->second.last_acked + 1;
}

int32_t IdempotenceState::in_flight(const TopicPartition& tp) const {
  auto it = parts_.find(tp);
  return it == parts_.end() ? 0 : it->second.in_flight;
}

void IdempotenceState::request_bump(const TopicPartition& tp) {
  if (!enabled_) return;
  bump_requested_ = true;
  to_rewrite_.insert(tp);
}

bool IdempotenceState::apply_bump() {
  if (!bump_requested_) return true;
  bump_requested_ = false;
  for (const TopicPartition& tp : to_rewrite_) part(tp).rewrite = true;
  to_rewrite_.clear();
  if (transactional_) return true;  // the transaction manager bumps through InitProducerId
  std::lock_guard<std::mutex> lock(id_mu_);
  if (epoch_ >= INT16_MAX - 1) {
    producer_id_ = -1;
    epoch_ = -1;
    return false;
  }
  ++epoch_;
  spdlog::info("producer: bumped the epoch of producer id {} to {}", producer_id_, epoch_);
  return true;
}

}  // namespace spool::client
