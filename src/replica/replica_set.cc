#include "replica/replica_set.h"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace spool::replica {

using protocol::ErrorCode;

namespace {

std::vector<int32_t> sorted_unique(std::vector<int32_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

ReplicaSet::ReplicaSet(int32_t local_broker_id, ReplicaSetConfig config, Eligible eligible)
    : local_broker_id_(local_broker_id), config_(config), eligible_(std::move(eligible)) {}

bool ReplicaSet::in(const std::vector<int32_t>& set, int32_t id) const {
  return std::binary_search(set.begin(), set.end(), id);
}

BecomeLeaderOutcome ReplicaSet::become_leader(const LeaderAndIsrState& state, int64_t log_end_offset,
                                              int64_t high_watermark, int64_t now_ms) {
  if (state.partition_epoch < partition_epoch_) {
    spdlog::info("replica set: skipped LeaderAndIsr with partition epoch {} below ours ({})", state.partition_epoch,
                 partition_epoch_);
    return BecomeLeaderOutcome::kSkippedStale;
  }
  const bool new_leader = !leading_;
  const bool new_epoch = new_leader || state.leader_epoch > leader_epoch_;

  replicas_ = state.replicas;
  auto isr = state.isr;
  isr.push_back(local_broker_id_);  // the leader is always in its ISR
  isr_ = sorted_unique(std::move(isr));
  std::map<int32_t, FollowerReplica> followers;
  for (int32_t id : replicas_) {
    if (id == local_broker_id_) continue;
    auto it = followers_.find(id);
    if (it != followers_.end() && !new_leader) {
      followers[id] = it->second;
    } else {
      FollowerReplica f;
      f.broker_id = id;
      followers[id] = f;
    }
  }
  followers_ = std::move(followers);
  pending_.reset();
  awaiting_leader_and_isr_ = false;

  if (new_epoch) {
    leader_epoch_start_offset_ = log_end_offset;
    for (auto& [id, f] : followers_) f.reset(now_ms, log_end_offset, new_leader, in(isr_, id));
    leader_epoch_ = state.leader_epoch;
    spdlog::info("replica set: leading epoch {} from offset {} with ISR {} (partition epoch {})", leader_epoch_,
                 log_end_offset, fmt::join(isr_, ","), state.partition_epoch);
  }
  partition_epoch_ = state.partition_epoch;
  high_watermark_ = new_leader ? high_watermark : std::max(high_watermark_, high_watermark);
  leading_ = true;
  return new_epoch ? BecomeLeaderOutcome::kNewEpoch : BecomeLeaderOutcome::kSameEpoch;
}

void ReplicaSet::become_follower(int32_t leader_epoch, int32_t partition_epoch) {
  leading_ = false;
  leader_epoch_ = std::max(leader_epoch_, leader_epoch);
  partition_epoch_ = std::max(partition_epoch_, partition_epoch);
  leader_epoch_start_offset_ = -1;
  isr_.clear();
  followers_.clear();
  pending_.reset();
  awaiting_leader_and_isr_ = false;
}

ErrorCode ReplicaSet::check_leader_epoch(int32_t request_leader_epoch) const {
  if (request_leader_epoch < 0 || request_leader_epoch == leader_epoch_) return ErrorCode::kNone;
  return request_leader_epoch < leader_epoch_ ? ErrorCode::kFencedLeaderEpoch : ErrorCode::kUnknownLeaderEpoch;
}

ErrorCode ReplicaSet::record_fetch(int32_t replica_id, int64_t fetch_offset, int64_t follower_log_start_offset,
                                   int64_t follower_broker_epoch, int64_t leader_log_end_offset, int64_t now_ms) {
  auto it = followers_.find(replica_id);
  if (it == followers_.end()) return ErrorCode::kUnknownLeaderEpoch;
  it->second.update_fetch_state(fetch_offset, follower_log_start_offset, now_ms, leader_log_end_offset,
                                follower_broker_epoch);
  return ErrorCode::kNone;
}

const FollowerReplica* ReplicaSet::follower(int32_t broker_id) const {
  auto it = followers_.find(broker_id);
  return it == followers_.end() ? nullptr : &it->second;
}

std::vector<int32_t> ReplicaSet::maximal_isr() const {
  if (pending_ && pending_->kind == IsrChange::Kind::kExpand) return pending_->new_isr;
  return isr_;
}

int32_t ReplicaSet::effective_min_isr() const {
  auto count = static_cast<int32_t>(std::max<size_t>(replicas_.size(), 1));
  return std::min(config_.min_insync_replicas, count);
}

int64_t ReplicaSet::counted_offset(int64_t log_end, int64_t synced) const {
  return config_.durable_writes ? std::min(log_end, synced) : log_end;
}

IsrChange ReplicaSet::make_change(IsrChange::Kind kind, std::vector<int32_t> new_isr, std::vector<int32_t> changed) {
  IsrChange c;
  c.kind = kind;
  c.id = next_change_id_++;
  c.leader_epoch = leader_epoch_;
  c.partition_epoch = partition_epoch_;
  c.new_isr = sorted_unique(std::move(new_isr));
  c.replicas = sorted_unique(std::move(changed));
  pending_ = c;
  return c;
}

bool ReplicaSet::can_expand(int32_t replica_id) const {
  if (!leading_ || pending_ || in(isr_, replica_id) || !eligible(replica_id)) return false;
  const FollowerReplica* f = follower(replica_id);
  if (!f) return false;
  return f->log_end_offset >= high_watermark_ && leader_epoch_start_offset_ >= 0 &&
         f->log_end_offset >= leader_epoch_start_offset_;
}

std::optional<IsrChange> ReplicaSet::maybe_expand_isr(int32_t replica_id) {
  if (!can_expand(replica_id)) return std::nullopt;
  auto isr = isr_;
  isr.push_back(replica_id);
  spdlog::info("replica set: expanding ISR from {} by {} (follower log end {}, high watermark {}, epoch start {})",
               fmt::join(isr_, ","), replica_id, follower(replica_id)->log_end_offset, high_watermark_,
               leader_epoch_start_offset_);
  return make_change(IsrChange::Kind::kExpand, std::move(isr), {replica_id});
}

std::vector<int32_t> ReplicaSet::out_of_sync_replicas(int64_t leader_log_end_offset, int64_t now_ms) const {
  std::vector<int32_t> out;
  if (!leading_ || pending_) return out;
  for (int32_t id : isr_) {
    if (id == local_broker_id_) continue;
    const FollowerReplica* f = follower(id);
    if (!f || !f->is_caught_up(leader_log_end_offset, now_ms, config_.replica_lag_time_max_ms)) out.push_back(id);
  }
  return out;
}

std::optional<IsrChange> ReplicaSet::maybe_shrink_isr(int64_t leader_log_end_offset, int64_t now_ms) {
  if (awaiting_leader_and_isr_) return std::nullopt;
  auto out = out_of_sync_replicas(leader_log_end_offset, now_ms);
  if (out.empty()) return std::nullopt;
  std::vector<int32_t> isr;
  for (int32_t id : isr_)
    if (!std::binary_search(out.begin(), out.end(), id)) isr.push_back(id);
  spdlog::info("replica set: shrinking ISR from {} to {} (leader log end {}, high watermark {})",
               fmt::join(isr_, ","), fmt::join(isr, ","), leader_log_end_offset, high_watermark_);
  return make_change(IsrChange::Kind::kShrink, std::move(isr), std::move(out));
}

int64_t ReplicaSet::high_watermark_candidate(const LocalLogOffsets& local, int64_t now_ms) const {
  int64_t hw = counted_offset(local.log_end_offset, local.synced_offset);
  const auto maximal = maximal_isr();
  for (const auto& [id, f] : followers_) {
    int64_t counted = counted_offset(f.log_end_offset, f.synced_offset);
    if (counted >= hw) continue;
    bool counts = in(maximal, id) ||
                  (f.is_caught_up(local.log_end_offset, now_ms, config_.replica_lag_time_max_ms) && eligible(id));
    if (counts) hw = counted;
  }
  return hw;
}

bool ReplicaSet::maybe_advance_high_watermark(const LocalLogOffsets& local, int64_t now_ms) {
  if (!leading_ || under_min_isr()) return false;
  int64_t candidate = high_watermark_candidate(local, now_ms);
  if (candidate <= high_watermark_) return false;
  high_watermark_ = candidate;
  return true;
}

ErrorCode ReplicaSet::check_append(int16_t acks) const {
  if (acks == -1 && under_min_isr()) return ErrorCode::kNotEnoughReplicas;
  return ErrorCode::kNone;
}

AckCheck ReplicaSet::check_enough_replicas_reach(int64_t required_offset) const {
  if (!leading_) return {true, ErrorCode::kNotLeaderOrFollower};
  if (high_watermark_ >= required_offset) return {true, ErrorCode::kNone};
  if (static_cast<int32_t>(maximal_isr().size()) < effective_min_isr())
    return {true, ErrorCode::kNotEnoughReplicasAfterAppend};
  return {false, ErrorCode::kNone};
}

AlterOutcome ReplicaSet::on_alter_partition_response(uint64_t change_id, const AlterPartitionResult& r) {
  if (!pending_ || pending_->id != change_id) {
    spdlog::debug("replica set: ignoring an AlterPartition answer for change {} (pending: {})", change_id,
                  pending_ ? static_cast<int64_t>(pending_->id) : -1);
    return AlterOutcome::kIgnored;
  }
  switch (r.error) {
    case ErrorCode::kNone:
      if (r.leader_epoch != leader_epoch_) {
        spdlog::info("replica set: ignoring new ISR with leader epoch {} (ours {})", r.leader_epoch, leader_epoch_);
        return AlterOutcome::kIgnored;
      }
      if (r.partition_epoch < partition_epoch_) {
        spdlog::info("replica set: ignoring new ISR with partition epoch {} (ours {})", r.partition_epoch,
                     partition_epoch_);
        return AlterOutcome::kIgnored;
      }
      isr_ = sorted_unique(r.isr);
      partition_epoch_ = r.partition_epoch;
      pending_.reset();
      spdlog::info("replica set: ISR now {} at partition epoch {}{}", fmt::join(isr_, ","), partition_epoch_,
                   under_min_isr() ? " (under min ISR)" : "");
      return AlterOutcome::kCommitted;
    case ErrorCode::kOperationNotAttempted:
    case ErrorCode::kIneligibleReplica:
      spdlog::info("replica set: AlterPartition rejected ({}); back to ISR {}", static_cast<int>(r.error),
                   fmt::join(isr_, ","));
      pending_.reset();
      return AlterOutcome::kReset;
    case ErrorCode::kFencedLeaderEpoch:
    case ErrorCode::kInvalidUpdateVersion:
    case ErrorCode::kUnknownTopicOrPartition:
    case ErrorCode::kUnknownTopicId:
    case ErrorCode::kInvalidRequest:
    case ErrorCode::kNewLeaderElected:
      spdlog::info("replica set: AlterPartition failed ({}); waiting for the next LeaderAndIsr",
                   static_cast<int>(r.error));
      awaiting_leader_and_isr_ = true;
      return AlterOutcome::kAwaitLeaderAndIsr;
    default:
      spdlog::warn("replica set: AlterPartition failed ({}); retrying", static_cast<int>(r.error));
      return AlterOutcome::kRetry;
  }
}

}  // namespace spool::replica
