// ReplicaManager, cluster mode: LeaderAndIsr (becomeLeaderOrFollower),
// StopReplica, the ISR shrink pass and replication-offset-checkpoint.
// See replica_manager.h and partition.h.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "broker/replica_manager.h"
#include "storage/checkpoint.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {
constexpr const char* kReplicationOffsetCheckpoint = "replication-offset-checkpoint";

bool zero_id(const TopicId& id) {
  return std::all_of(id.begin(), id.end(), [](uint8_t b) { return b == 0; });
}

std::string root_of(const storage::Log& log) { return std::filesystem::path(log.dir()).parent_path().string(); }
}  // namespace

void ReplicaManager::enable_cluster_mode(ClusterHooks hooks) {
  std::unique_lock lk(mu_);
  cluster_ = std::move(hooks);
}

Status ReplicaManager::load_cluster() {
  std::set<std::string> roots(settings_.log_dirs.begin(), settings_.log_dirs.end());
  std::unique_lock lk(mu_);
  for (const auto& root : roots) {
    auto offsets = storage::read_offset_checkpoint((std::filesystem::path(root) / kReplicationOffsetCheckpoint).string());
    if (!offsets) {
      // Kafka fails the log dir; Spool starts every partition from 0 (the
      // leader re-sends the high watermark on the first fetch).
      spdlog::error("{}: {}; high watermarks start at 0", root, offsets.status().message());
      continue;
    }
    for (const auto& [tp, hw] : *offsets) checkpointed_hw_[TopicPartition(tp.topic, tp.partition)] = hw;
  }
  spdlog::info("cluster mode: {} high watermarks read back; partitions open on LeaderAndIsr",
               checkpointed_hw_.size());
  return Status::ok();
}

Result<std::shared_ptr<Partition>> ReplicaManager::get_or_create_locked(const TopicPartition& tp, const TopicId& id,
                                                                        const std::map<std::string, std::string>& configs) {
  auto info = registry_.get(tp.topic);
  if (info && !zero_id(id) && info->id != id) {
    return Status::error("topic " + tp.topic + " is hosted here with id " + storage::uuid_to_text(info->id) +
                             " but the controller names id " + storage::uuid_to_text(id),
                         static_cast<int16_t>(ErrorCode::kInconsistentTopicId));
  }
  if (!info) {
    auto added = zero_id(id) ? registry_.add(tp.topic, tp.partition + 1, configs)
                             : registry_.add_with_id(tp.topic, id, tp.partition + 1, configs);
    if (!added) return added.status();
    info = added.value();
  } else if (info->partitions <= tp.partition) {
    auto grown = registry_.set_partitions(tp.topic, tp.partition + 1);
    if (!grown) return grown.status();
    info = grown.value();
  }
  auto& parts = partitions_[tp.topic];
  if (parts.size() <= static_cast<size_t>(tp.partition)) parts.resize(static_cast<size_t>(tp.partition) + 1);
  auto& slot = parts[static_cast<size_t>(tp.partition)];
  if (slot) return slot;

  storage::LogConfig lc = log_config_for(settings_, info->configs);
  auto log = logs_.get(tp.topic, tp.partition);
  if (log) {
    auto owner = storage::read_partition_metadata(log->dir());
    if (!owner) return Status::error(owner.status().message(), static_cast<int16_t>(ErrorCode::kKafkaStorageError));
    if (owner->has_value() && **owner != info->id)
      return Status::error(log->dir() + " holds topic id " + storage::uuid_to_text(**owner) + ", not " +
                               storage::uuid_to_text(info->id),
                           static_cast<int16_t>(ErrorCode::kInconsistentTopicId));
    log->update_config(lc);
  } else {
    auto created = logs_.create(tp.topic, tp.partition, lc);
    if (!created) return created.status();
    log = created.value();
  }
  if (Status w = storage::write_partition_metadata(log->dir(), info->id); !w)
    return Status::error(w.message(), static_cast<int16_t>(ErrorCode::kKafkaStorageError));
  auto part = std::make_shared<Partition>(tp.topic, tp.partition, log, logs_.flusher(), lc.durable_writes,
                                          hw_listener());
  part->set_topic_id(info->id);
  part->set_max_message_bytes(max_message_bytes_for(info->configs));
  part->set_min_insync_replicas(min_insync_replicas_for(info->configs));
  apply_throttles(*part, info->configs);
  if (cluster_->now_ms) part->set_clock(cluster_->now_ms);
  if (cluster_->isr_sink) part->set_isr_change_sink(cluster_->isr_sink);
  if (auto it = checkpointed_hw_.find(tp); it != checkpointed_hw_.end()) part->restore_high_watermark(it->second);
  slot = part;
  return part;
}

ErrorCode ReplicaManager::become_one(const cluster::LeaderAndIsrPartitionCommand& p, int32_t local_broker_id,
                                     const std::vector<cluster::LiveLeaderEndpoint>& leaders) {
  std::shared_ptr<Partition> part;
  // A topic new to this broker is registered with its overrides from the
  // cluster (read here, before the lock: a store round trip).
  std::map<std::string, std::string> configs;
  if (cluster_->topic_configs && !registry_.get(p.partition.topic)) {
    if (auto got = cluster_->topic_configs(p.partition.topic)) configs = std::move(*got);
  }
  {
    std::unique_lock lk(mu_);
    if (std::find(p.replicas.begin(), p.replicas.end(), local_broker_id) == p.replicas.end()) {
      spdlog::warn("LeaderAndIsr for {}: this broker ({}) is not among its replicas", p.partition.to_string(),
                   local_broker_id);
      return ErrorCode::kUnknownTopicOrPartition;
    }
    auto got = get_or_create_locked(p.partition, p.topic_id, configs);
    if (!got) {
      spdlog::error("LeaderAndIsr for {}: {}", p.partition.to_string(), got.status().message());
      const int16_t c = got.status().kafka_code();
      return c > 0 ? static_cast<ErrorCode>(c) : ErrorCode::kKafkaStorageError;
    }
    part = got.value();
  }
  // KIP-112: a replica on an offline log dir says so; the controller then
  // counts it offline and moves leadership away.
  if (part->offline()) return ErrorCode::kKafkaStorageError;
  // Kafka's becomeLeaderOrFollower: only a newer leader epoch is applied.
  if (!part->leader_epoch_is_newer(p.leader_epoch)) {
    spdlog::info("LeaderAndIsr for {} ignored: leader epoch {} is not newer than ours ({})", p.partition.to_string(),
                 p.leader_epoch, part->leader_epoch());
    return ErrorCode::kStaleControllerEpoch;
  }
  if (p.leader == local_broker_id) {
    if (cluster_->stop_following) cluster_->stop_following(p.partition);
    replica::LeaderAndIsrState state{p.leader_epoch, p.partition_epoch, p.replicas, p.isr};
    replica::ReplicaSetConfig config{cluster_->replica_lag_time_max_ms, part->min_insync_replicas(),
                                     part->durable_writes()};
    if (part->make_leader(local_broker_id, state, config, cluster_->eligible) ==
        replica::BecomeLeaderOutcome::kSkippedStale)
      return ErrorCode::kNone;  // partition epoch below ours: skipped, as Kafka
    if (p.leader_recovery_state == 1) {
      // Unclean election (RECOVERING): whatever the old ISR had beyond our
      // log end is gone.
      spdlog::warn("{}: elected leader uncleanly (epoch {}); records the old leader had past offset {} may be lost",
                   p.partition.to_string(), p.leader_epoch, part->log_end_offset());
    }
    if (leadership_listener_) leadership_listener_(p.partition, true, p.leader_epoch);
    return ErrorCode::kNone;
  }
  if (!part->make_follower(p.leader, p.leader_epoch, p.partition_epoch)) return ErrorCode::kNone;
  spdlog::info("{}: follower of broker {} for epoch {} (partition epoch {}, log end {})", p.partition.to_string(),
               p.leader, p.leader_epoch, p.partition_epoch, part->log_end_offset());
  if (cluster_->stop_following) cluster_->stop_following(p.partition);
  if (p.leader >= 0 && cluster_->start_following) cluster_->start_following(part, p.leader, leaders);
  if (leadership_listener_) leadership_listener_(p.partition, false, p.leader_epoch);
  return ErrorCode::kNone;
}

std::vector<PartitionOutcome> ReplicaManager::become_leader_or_follower(const cluster::LeaderAndIsrCommand& command,
                                                                        int32_t local_broker_id) {
  std::vector<PartitionOutcome> out;
  out.reserve(command.partitions.size());
  if (!cluster_mode()) {
    for (const auto& p : command.partitions) out.push_back({p.partition, ErrorCode::kUnknownServerError});
    return out;
  }
  for (const auto& p : command.partitions)
    out.push_back({p.partition, become_one(p, local_broker_id, command.live_leaders)});
  return out;
}

std::vector<PartitionOutcome> ReplicaManager::stop_replicas(const cluster::StopReplicaCommand& command) {
  std::vector<PartitionOutcome> out;
  out.reserve(command.partitions.size());
  // The logs to delete, removed together at the end (one log-dir sync and
  // one checkpoint rewrite, not one per partition), with their index in out
  // (none for a stray log: its outcome is NONE whatever happens).
  std::vector<storage::TopicPartition> doomed;
  std::vector<size_t> doomed_out;
  constexpr size_t kStray = static_cast<size_t>(-1);
  for (const auto& p : command.partitions) {
    auto part = partition(p.partition);
    if (!part) {
      // Kafka answers NONE for a partition it does not host (and still
      // deletes a stray log when asked).
      if (p.delete_partition && logs_.get(p.partition.topic, p.partition.partition)) {
        doomed.push_back(storage::TopicPartition{p.partition.topic, p.partition.partition});
        doomed_out.push_back(kStray);
      }
      out.push_back({p.partition, ErrorCode::kNone});
      continue;
    }
    const int32_t ours = part->leader_epoch();
    const bool bypass = p.leader_epoch == cluster::kStopReplicaNoEpoch ||
                        p.leader_epoch == cluster::kStopReplicaEpochDuringDelete;
    if (!bypass && p.leader_epoch < ours) {
      out.push_back({p.partition, ErrorCode::kFencedLeaderEpoch});
      continue;
    }
    if (cluster_ && cluster_->stop_following) cluster_->stop_following(p.partition);
    // Stop leading: parked produces and fetches answer NOT_LEADER_OR_FOLLOWER.
    part->make_follower(-1, bypass ? ours : p.leader_epoch, part->partition_epoch());
    if (leadership_listener_) leadership_listener_(p.partition, false, part->leader_epoch());
    if (p.delete_partition) {
      {
        std::unique_lock lk(mu_);
        auto it = partitions_.find(p.partition.topic);
        if (it != partitions_.end() && static_cast<size_t>(p.partition.partition) < it->second.size())
          it->second[static_cast<size_t>(p.partition.partition)].reset();
        if (it != partitions_.end() &&
            std::none_of(it->second.begin(), it->second.end(), [](const auto& x) { return x != nullptr; })) {
          partitions_.erase(it);
          (void)registry_.remove(p.partition.topic);
        }
        checkpointed_hw_.erase(p.partition);
      }
      doomed.push_back(storage::TopicPartition{p.partition.topic, p.partition.partition});
      doomed_out.push_back(out.size());
    }
    out.push_back({p.partition, ErrorCode::kNone});
  }
  if (!doomed.empty()) {
    std::vector<Status> each;
    (void)logs_.remove_partitions(doomed, &each);
    for (size_t i = 0; i < doomed.size(); ++i) {
      const std::string name = doomed[i].dir_name();
      if (!each[i]) {
        spdlog::error("StopReplica: removing {} failed: {}", name, each[i].message());
        if (doomed_out[i] != kStray) out[doomed_out[i]].error = ErrorCode::kKafkaStorageError;
      } else {
        spdlog::info("StopReplica: deleted {}", name);
      }
    }
  }
  return out;
}

void ReplicaManager::maybe_shrink_isr() {
  std::vector<std::shared_ptr<Partition>> led;
  {
    std::shared_lock lk(mu_);
    for (const auto& [_, parts] : partitions_)
      for (const auto& p : parts)
        if (p && p->role() == Partition::Role::kLeader) led.push_back(p);
  }
  for (const auto& p : led) {
    p->maybe_shrink_isr();
    p->maybe_advance_high_watermark();  // time alone can free it (a follower caught up waiting to join)
  }
}

Status ReplicaManager::checkpoint_high_watermarks() {
  std::map<std::string, storage::OffsetMap> by_root;
  for (const auto& root : settings_.log_dirs) by_root[root];
  {
    std::shared_lock lk(mu_);
    for (const auto& [_, parts] : partitions_)
      for (const auto& p : parts)
        if (p && p->role() != Partition::Role::kSingleNode)
          by_root[root_of(p->log())][storage::TopicPartition{p->topic(), p->index()}] = p->high_watermark();
  }
  Status result = Status::ok();
  for (const auto& [root, offsets] : by_root) {
    if (logs_.dir_offline(root)) continue;  // KIP-112: nothing is written there any more
    Status s = storage::write_offset_checkpoint((std::filesystem::path(root) / kReplicationOffsetCheckpoint).string(),
                                                offsets);
    if (!s) {
      spdlog::error("writing {} in {}: {}", kReplicationOffsetCheckpoint, root, s.message());
      result = s;
    }
  }
  return result;
}

}  // namespace spool::broker
