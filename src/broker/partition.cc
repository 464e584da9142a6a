#include "broker/partition.h"

#include "protocol/error_code.h"
#include "storage/flusher.h"

namespace spool::broker {

Partition::Partition(std::string topic, int32_t index, std::shared_ptr<storage::Log> log,
                     storage::Flusher& flusher, bool durable_writes, HwListener on_hw_advance)
    : tp_(std::move(topic), index),
      on_hw_advance_(std::move(on_hw_advance)), log_(std::move(log)), flusher_(flusher),
      durable_(durable_writes) {}

int64_t Partition::high_watermark() const {
  if (role() != Role::kSingleNode) return cluster_hw_.load();
  return durable_.load() ? log_->flushed_offset() : log_->log_end_offset();
}

Status Partition::check_enough_replicas() const {
  if (role() == Role::kFollower)
    return Status::error("this broker is not the leader of " + tp_.to_string(),
                         static_cast<int16_t>(protocol::ErrorCode::kNotLeaderOrFollower));
  if (role() == Role::kLeader) {
    std::lock_guard lk(cluster_mu_);
    if (replicas_ && replicas_->check_append(-1) != protocol::ErrorCode::kNone)
      return Status::error("The size of the current ISR " + std::to_string(replicas_->isr().size()) +
                               " is insufficient to satisfy the min.isr requirement of " +
                               std::to_string(replicas_->effective_min_isr()) + " for partition " + tp_.to_string(),
                           static_cast<int16_t>(protocol::ErrorCode::kNotEnoughReplicas));
    return Status::ok();
  }
  const int32_t isr = in_sync_replica_count();
  const int32_t min_isr = min_insync_replicas();
  if (isr >= min_isr) return Status::ok();
  // Kafka's wording (Partition.appendRecordsToLeader).
  return Status::error("The size of the current ISR " + std::to_string(isr) +
                           " is insufficient to satisfy the min.isr requirement of " + std::to_string(min_isr) +
                           " for partition " + tp_.to_string(),
                       static_cast<int16_t>(protocol::ErrorCode::kNotEnoughReplicas));
}

Partition::ReplicaCheck Partition::check_enough_replicas_reach_offset(int64_t required_offset) const {
  if (offline()) return {false, protocol::ErrorCode::kKafkaStorageError};
  if (role() == Role::kFollower) return {false, protocol::ErrorCode::kNotLeaderOrFollower};
  if (role() == Role::kLeader) {
    std::lock_guard lk(cluster_mu_);
    if (!replicas_) return {false, protocol::ErrorCode::kNotLeaderOrFollower};
    auto c = replicas_->check_enough_replicas_reach(required_offset);
    if (c.done) return {c.error == protocol::ErrorCode::kNone, c.error};
    if (failed_flush_through_.load() >= required_offset - 1) return {false, protocol::ErrorCode::kKafkaStorageError};
    return {false, protocol::ErrorCode::kNone};
  }
  if (high_watermark() >= required_offset) return {true, protocol::ErrorCode::kNone};
  // The pass that was to make required_offset - 1 durable failed (a later
  // pass covering it would have moved the high watermark first).
  if (failed_flush_through_.load() >= required_offset - 1) return {false, protocol::ErrorCode::kKafkaStorageError};
  return {false, protocol::ErrorCode::kNone};
}

std::pair<int32_t, int64_t> Partition::last_offset_for_leader_epoch(int32_t epoch) const {
  return log_->end_offset_for_epoch(epoch);
}

Result<int64_t> Partition::delete_records_on_leader(int64_t offset) {
  const int64_t hw = high_watermark();
  const int64_t target = offset == kDeleteToHighWatermark ? hw : offset;
  if (target < 0 || target > hw)
    return Status::error("offset " + std::to_string(offset) + " is outside [0, high watermark " + std::to_string(hw) +
                             "] of " + tp_.to_string(),
                         static_cast<int16_t>(protocol::ErrorCode::kOffsetOutOfRange));
  if (Status s = log_->advance_log_start_offset(target); !s) return s;
  return log_->log_start_offset();
}

Result<storage::AppendResult> Partition::append(std::span<uint8_t> batches, int32_t record_count) {
  if (role() == Role::kFollower)
    return Status::error("this broker is not the leader of " + tp_.to_string(),
                         static_cast<int16_t>(protocol::ErrorCode::kNotLeaderOrFollower));
  auto res = log_->append(batches, record_count, leader_epoch_.load());
  if (res) after_append(res->last_offset);
  return res;
}

Result<storage::AppendResult> Partition::append_txn_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                                           int32_t coordinator_epoch) {
  if (role() == Role::kFollower)
    return Status::error("this broker is not the leader of " + tp_.to_string(),
                         static_cast<int16_t>(protocol::ErrorCode::kNotLeaderOrFollower));
  auto res = log_->append_txn_marker(producer_id, producer_epoch, commit, coordinator_epoch, leader_epoch_.load());
  if (res) after_append(res->last_offset);
  return res;
}

void Partition::after_append(int64_t last_offset) {
  if (role() == Role::kLeader && durable_.load()) notify_hw();  // followers' parked fetches read up to the log end
  if (!durable_.load()) {
    if (role() == Role::kLeader) maybe_advance_high_watermark();
    notify_hw();
    return;
  }
  // Ask for a prompt group-committed fsync; the high watermark (and with it
  // the last stable offset) moves with it. A failure is remembered for the
  // acks=all waits (check_enough_replicas_reach_offset).
  std::weak_ptr<Partition> self = weak_from_this();
  flusher_.await_durable(log_, last_offset, [self, last_offset](Status s) {
    auto p = self.lock();
    if (!p) return;
    if (!s) {
      int64_t seen = p->failed_flush_through_.load();
      while (seen < last_offset && !p->failed_flush_through_.compare_exchange_weak(seen, last_offset)) {
      }
    }
    if (p->role() == Role::kLeader) p->maybe_advance_high_watermark();
    p->notify_hw();
  });
}

void Partition::await_durable(int64_t last_offset, std::function<void(Status)> done) {
  if (!durable_.load()) {
    done(Status::ok());
    return;
  }
  flusher_.await_durable(log_, last_offset, std::move(done));
}

}  // namespace spool::broker
