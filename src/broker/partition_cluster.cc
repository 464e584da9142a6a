// Partition, cluster mode: leader and follower roles (see partition.h).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "broker/partition.h"
#include "replica/isr_metrics.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {
int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
std::string fmt_ids(const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) {
    if (!out.empty()) out += ",";
    out += std::to_string(id);
  }
  return out;
}
}  // namespace

void Partition::set_min_insync_replicas(int32_t n) {
  min_insync_replicas_.store(n);
  std::lock_guard lk(cluster_mu_);
  if (!replicas_ || replicas_->config().min_insync_replicas == n) return;
  auto config = replicas_->config();
  config.min_insync_replicas = n;
  replicas_->set_config(config);
}

replica::LocalLogOffsets Partition::local_offsets() const {
  return {log_->log_end_offset(), log_->flushed_offset()};
}

int32_t Partition::partition_epoch() const {
  std::lock_guard lk(cluster_mu_);
  if (replicas_ && replicas_->leading()) return replicas_->partition_epoch();
  return partition_epoch_;
}

bool Partition::leader_epoch_is_newer(int32_t leader_epoch) const {
  std::lock_guard lk(cluster_mu_);
  return !seen_leader_and_isr_ || leader_epoch > leader_epoch_.load();
}

replica::BecomeLeaderOutcome Partition::make_leader(int32_t local_broker_id, const replica::LeaderAndIsrState& state,
                                                    const replica::ReplicaSetConfig& config,
                                                    replica::ReplicaSet::Eligible eligible) {
  const int64_t now = now_ms_ ? now_ms_() : steady_ms();
  replica::BecomeLeaderOutcome outcome;
  {
    std::lock_guard lk(cluster_mu_);
    if (state.partition_epoch < partition_epoch_) return replica::BecomeLeaderOutcome::kSkippedStale;
    if (!replicas_) replicas_.emplace(local_broker_id, config, std::move(eligible));
    replicas_->set_config(config);
    // As follower (or from the checkpoint) the high watermark was learnt;
    // a fresh leader starts from it, never above its own log end.
    const int64_t hw = std::min(cluster_hw_.load(), log_->log_end_offset());
    outcome = replicas_->become_leader(state, log_->log_end_offset(), hw, now);
    if (outcome == replica::BecomeLeaderOutcome::kSkippedStale) return outcome;
    if (outcome == replica::BecomeLeaderOutcome::kNewEpoch) {
      const int64_t start = log_->begin_leader_epoch(state.leader_epoch);
      spdlog::info("{}: leader for epoch {} from offset {} (ISR [{}], high watermark {})", tp_.to_string(),
                   state.leader_epoch, start, fmt_ids(state.isr), hw);
    }
    partition_epoch_ = state.partition_epoch;
    seen_leader_and_isr_ = true;
    leader_epoch_.store(state.leader_epoch);
    leader_id_.store(local_broker_id);
    role_.store(Role::kLeader);
    replicas_->maybe_advance_high_watermark(local_offsets(), now);
    cluster_hw_.store(std::max<int64_t>(replicas_->high_watermark(), 0));
  }
  notify_hw();
  return outcome;
}

bool Partition::make_follower(int32_t leader, int32_t leader_epoch, int32_t partition_epoch) {
  {
    std::lock_guard lk(cluster_mu_);
    if (partition_epoch < partition_epoch_) return false;
    if (replicas_) replicas_->become_follower(leader_epoch, partition_epoch);
    partition_epoch_ = partition_epoch;
    seen_leader_and_isr_ = true;
    leader_epoch_.store(leader_epoch);
    leader_id_.store(leader);
    cluster_hw_.store(std::min(cluster_hw_.load(), log_->log_end_offset()));
    role_.store(Role::kFollower);
  }
  // Parked acks=all produces and consumer fetches re-check: they now answer
  // NOT_LEADER_OR_FOLLOWER.
  notify_hw();
  return true;
}

ErrorCode Partition::record_follower_fetch(int32_t replica_id, int64_t fetch_offset, int64_t log_start_offset,
                                           int64_t broker_epoch) {
  const int64_t now = now_ms_ ? now_ms_() : steady_ms();
  std::optional<replica::IsrChange> change;
  bool advanced = false;
  {
    std::lock_guard lk(cluster_mu_);
    if (role() != Role::kLeader || !replicas_) return ErrorCode::kNotLeaderOrFollower;
    const ErrorCode e =
        replicas_->record_fetch(replica_id, fetch_offset, log_start_offset, broker_epoch, log_->log_end_offset(), now);
    if (e != ErrorCode::kNone) return e;
    if (!replicas_->pending_change() && !replicas_->awaiting_leader_and_isr()) change = replicas_->maybe_expand_isr(replica_id);
    advanced = replicas_->maybe_advance_high_watermark(local_offsets(), now);
    cluster_hw_.store(replicas_->high_watermark());
  }
  propose(change);
  if (advanced) notify_hw();
  return ErrorCode::kNone;
}

void Partition::maybe_shrink_isr() {
  const int64_t now = now_ms_ ? now_ms_() : steady_ms();
  std::optional<replica::IsrChange> change;
  {
    std::lock_guard lk(cluster_mu_);
    if (role() != Role::kLeader || !replicas_ || replicas_->awaiting_leader_and_isr()) return;
    change = replicas_->maybe_shrink_isr(log_->log_end_offset(), now);
  }
  if (change)
    spdlog::info("{}: shrinking ISR, removing [{}] (lagging more than replica.lag.time.max.ms)", tp_.to_string(),
                 fmt_ids(change->replicas));
  propose(change);
}

void Partition::propose(const std::optional<replica::IsrChange>& change) {
  if (!change || !isr_sink_) return;
  isr_sink_(shared_from_this(), *change);
}

replica::AlterOutcome Partition::on_alter_partition_response(uint64_t change_id,
                                                             const replica::AlterPartitionResult& result) {
  const int64_t now = now_ms_ ? now_ms_() : steady_ms();
  replica::AlterOutcome outcome;
  bool advanced = false;
  std::optional<replica::IsrChange> retry;
  {
    std::lock_guard lk(cluster_mu_);
    if (!replicas_ || !replicas_->leading()) return replica::AlterOutcome::kIgnored;
    const size_t isr_before = replicas_->isr().size();
    outcome = replicas_->on_alter_partition_response(change_id, result);
    if (outcome == replica::AlterOutcome::kCommitted) {
      const size_t isr_after = replicas_->isr().size();
      if (isr_after < isr_before) replica::isr_metrics().shrinks.add();
      if (isr_after > isr_before) replica::isr_metrics().expands.add();
      partition_epoch_ = replicas_->partition_epoch();
      advanced = replicas_->maybe_advance_high_watermark(local_offsets(), now);
      cluster_hw_.store(replicas_->high_watermark());
    } else if (outcome == replica::AlterOutcome::kRetry) {
      retry = replicas_->pending_change();
    }
  }
  if (outcome == replica::AlterOutcome::kCommitted)
    spdlog::info("{}: ISR now [{}] (partition epoch {})", tp_.to_string(), fmt_ids(result.isr), result.partition_epoch);
  else if (outcome == replica::AlterOutcome::kAwaitLeaderAndIsr)
    spdlog::warn("{}: AlterPartition answered {}; no ISR change until the next LeaderAndIsr", tp_.to_string(),
                 static_cast<int>(result.error));
  propose(retry);
  if (advanced) notify_hw();
  return outcome;
}

void Partition::maybe_advance_high_watermark() {
  const int64_t now = now_ms_ ? now_ms_() : steady_ms();
  std::lock_guard lk(cluster_mu_);
  if (role() != Role::kLeader || !replicas_) return;
  replicas_->maybe_advance_high_watermark(local_offsets(), now);
  cluster_hw_.store(replicas_->high_watermark());
}

std::optional<replica::ReplicaSet> Partition::replica_set() const {
  std::lock_guard lk(cluster_mu_);
  if (!replicas_ || !replicas_->leading()) return std::nullopt;
  return replicas_;
}

bool Partition::in_isr(int32_t replica_id) const {
  std::lock_guard lk(cluster_mu_);
  if (!replicas_ || !replicas_->leading()) return false;
  const auto& isr = replicas_->isr();
  return std::find(isr.begin(), isr.end(), replica_id) != isr.end();
}

Result<storage::AppendResult> Partition::append_as_follower(std::span<const uint8_t> batches) {
  return log_->append_as_follower(batches);
}

void Partition::set_follower_high_watermark(int64_t hw) {
  if (role() != Role::kFollower) return;
  cluster_hw_.store(std::max<int64_t>(0, std::min(hw, log_->log_end_offset())));
  notify_hw();
}

void Partition::restore_high_watermark(int64_t hw) {
  cluster_hw_.store(std::max<int64_t>(0, std::min(hw, log_->log_end_offset())));
}

}  // namespace spool::broker
