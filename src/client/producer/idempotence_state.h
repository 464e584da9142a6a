// IdempotenceState: the native producer's producer id, epoch and per-
// partition sequence numbers (the idempotent half of Kafka's
// TransactionManager), and the drain rules that keep batches in order.
//
// Rules (DrainGate, asked by the accumulator under its lock):
// - Nothing drains before a producer id is known.
// - A partition sends at most max_in_flight batches at once. A retried
//   batch (it already has a sequence) goes only when nothing of its
//   partition is in flight, so retries leave in sequence order.
// - A batch keeps its (producer id, epoch, sequence) across retries; the
//   broker then drops a copy it already wrote. Only a partition whose state
//   the broker lost (rewrite) gets new sequences under a new epoch.
// - Epoch bumps (KIP-360, for the idempotent producer without
//   transactions): request_bump(tp) after UNKNOWN_PRODUCER_ID, after
//   OUT_OF_ORDER_SEQUENCE_NUMBER on the batch that was next in line, or after
//   a sequenced batch failed for good (its sequence is a gap now). apply_bump()
//   raises the epoch (a new producer id is needed past 32767); the partitions
//   that asked restart at sequence 0 once nothing of theirs is in flight,
//   and their retried batches are renumbered in their old order; every other
//   partition moves to the new epoch, at sequence 0, the next time it has
//   nothing in flight and sends a new batch.
// Threading: owned by the sender's thread (the DrainGate calls run there
// too, from drain). Only the producer id and epoch may be read and set from
// any thread (the transaction manager sets them); they sit under a mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>

#include "client/producer/producer_batch.h"
#include "client/producer/record_accumulator.h"
#include "util/topic_partition.h"

namespace spool::client {

class IdempotenceState final : public DrainGate {
 public:
  IdempotenceState(bool enabled, int32_t max_in_flight, bool transactional)
      : enabled_(enabled), max_in_flight_(max_in_flight), transactional_(transactional) {}

  bool enabled() const { return enabled_; }
  bool has_producer_id() const { return producer_id() >= 0; }
  int64_t producer_id() const {
    std::lock_guard<std::mutex> lock(id_mu_);
    return producer_id_;
  }
  int16_t epoch() const {
    std::lock_guard<std::mutex> lock(id_mu_);
    return epoch_;
  }
  void set_producer_id(int64_t id, int16_t epoch);
  // The next attempt needs a new producer id (InitProducerId).
  void reset_producer_id();

  // A further condition for sending a partition's batches (the
  // transaction manager: the partition was added to the transaction).
  void set_gate(std::function<bool(const TopicPartition&)> gate) { gate_ = std::move(gate); }

  bool may_drain(const ProducerBatch& first) override;
  void on_drain(ProducerBatch& batch) override;

  // Answers: each batch that was drained comes back through exactly one.
  void on_acked(const ProducerBatch& batch);
  void on_failed(const ProducerBatch& batch);
  // Whether a sequenced batch that failed with OUT_OF_ORDER_SEQUENCE_NUMBER
  // was the next in line (then the broker lost our state: bump).
  bool is_next_in_line(const ProducerBatch& batch) const;
  int32_t in_flight(const TopicPartition& tp) const;

  void request_bump(const TopicPartition& tp);
  bool bump_requested() const { return bump_requested_; }
  // Raises the epoch; false when the epoch is exhausted and a new producer
  // id must be fetched (reset_producer_id() was called).
  bool apply_bump();

 private:
  struct Partition {
    int64_t producer_id = -1;
    int16_t epoch = -1;
    int32_t next_sequence = 0;
    int32_t last_acked = -1;
    int32_t in_flight = 0;
    bool rewrite = false;  // renumber its old-epoch batches
  };
  Partition& part(const TopicPartition& tp) { return parts_[tp]; }
  // The partition moves to the current producer id and epoch, at sequence 0.
  void adopt(Partition& p) const;

  bool enabled_;
  int32_t max_in_flight_;
  bool transactional_;
  mutable std::mutex id_mu_;  // guards producer_id_ and epoch_
  int64_t producer_id_ = -1;
  int16_t epoch_ = -1;
  bool bump_requested_ = false;
  std::set<TopicPartition> to_rewrite_;
  std::function<bool(const TopicPartition&)> gate_;
  std::map<TopicPartition, Partition> parts_;
};

}  // namespace spool::client
