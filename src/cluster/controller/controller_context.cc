#include "cluster/controller/controller_context.h"

#include <algorithm>

namespace spool::cluster::controller {

bool LeaderAndIsr::same_state_as(const LeaderAndIsr& other) const {
  if (leader != other.leader || leader_epoch != other.leader_epoch || recovery != other.recovery) return false;
  std::set<int32_t> a(isr.begin(), isr.end());
  std::set<int32_t> b(other.isr.begin(), other.isr.end());
  return a == b;
}

const char* partition_state_name(PartitionState s) {
  switch (s) {
    case PartitionState::kNonExistent: return "NonExistentPartition";
    case PartitionState::kNew: return "NewPartition";
    case PartitionState::kOnline: return "OnlinePartition";
    case PartitionState::kOffline: return "OfflinePartition";
  }
  return "?";
}

const char* replica_state_name(ReplicaState s) {
  switch (s) {
    case ReplicaState::kNonExistent: return "NonExistentReplica";
    case ReplicaState::kNew: return "NewReplica";
    case ReplicaState::kOnline: return "OnlineReplica";
    case ReplicaState::kOffline: return "OfflineReplica";
    case ReplicaState::kDeletionStarted: return "ReplicaDeletionStarted";
    case ReplicaState::kDeletionSuccessful: return "ReplicaDeletionSuccessful";
    case ReplicaState::kDeletionIneligible: return "ReplicaDeletionIneligible";
  }
  return "?";
}

std::set<int32_t> ControllerContext::live_broker_ids() const {
  std::set<int32_t> out;
  for (const auto& [id, info] : brokers) {
    if (shutting_down.count(id) == 0) out.insert(id);
  }
  return out;
}

std::set<int32_t> ControllerContext::live_or_shutting_down_ids() const {
  std::set<int32_t> out;
  for (const auto& [id, info] : brokers) out.insert(id);
  return out;
}

std::optional<int64_t> ControllerContext::broker_epoch(int32_t broker) const {
  auto it = brokers.find(broker);
  if (it == brokers.end()) return std::nullopt;
  return it->second.epoch;
}

bool ControllerContext::is_replica_online(int32_t broker, const TopicPartition& tp, bool include_shutting_down) const {
  if (include_shutting_down ? brokers.count(broker) == 0 : !is_live(broker)) return false;
  auto it = replicas_on_offline_dirs.find(broker);
  return it == replicas_on_offline_dirs.end() || it->second.count(tp) == 0;
}

std::set<int32_t> ControllerContext::with_online_replica(const TopicPartition& tp,
                                                         const std::set<int32_t>& ids) const {
  std::set<int32_t> out;
  for (int32_t b : ids) {
    auto it = replicas_on_offline_dirs.find(b);
    if (it == replicas_on_offline_dirs.end() || it->second.count(tp) == 0) out.insert(b);
  }
  return out;
}

const std::vector<int32_t>& ControllerContext::replicas(const TopicPartition& tp) const {
  static const std::vector<int32_t> kEmpty;
  auto it = assignment.find(tp);
  return it == assignment.end() ? kEmpty : it->second;
}

std::vector<TopicPartition> ControllerContext::partitions_of(const std::string& topic) const {
  std::vector<TopicPartition> out;
  for (auto it = assignment.lower_bound(TopicPartition(topic, INT32_MIN)); it != assignment.end() && it->first.topic == topic;
       ++it) {
    out.push_back(it->first);
  }
  return out;
}

std::vector<TopicPartition> ControllerContext::partitions_on_broker(int32_t broker) const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, reps] : assignment) {
    if (std::find(reps.begin(), reps.end(), broker) != reps.end()) out.push_back(tp);
  }
  return out;
}

std::vector<PartitionReplica> ControllerContext::replicas_on_brokers(const std::set<int32_t>& ids) const {
  std::vector<PartitionReplica> out;
  for (const auto& [tp, reps] : assignment) {
    for (int32_t r : reps) {
      if (ids.count(r) != 0) out.push_back(PartitionReplica{tp, r});
    }
  }
  return out;
}

std::vector<PartitionReplica> ControllerContext::replicas_of(const std::vector<TopicPartition>& partitions) const {
  std::vector<PartitionReplica> out;
  for (const auto& tp : partitions) {
    for (int32_t r : replicas(tp)) out.push_back(PartitionReplica{tp, r});
  }
  return out;
}

std::vector<TopicPartition> ControllerContext::partitions_with_offline_leader() const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, lead] : leadership) {
    if (queued_for_deletion(tp.topic)) continue;
    int32_t leader = lead.leader_and_isr.leader;
    if (leader == kNoLeader || !is_replica_online(leader, tp)) out.push_back(tp);
  }
  return out;
}

std::vector<TopicPartition> ControllerContext::partitions_led_by(int32_t broker) const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, lead] : leadership) {
    if (lead.leader_and_isr.leader == broker) out.push_back(tp);
  }
  return out;
}

std::vector<TopicPartition> ControllerContext::partitions_in_state(PartitionState s) const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, st] : partition_states) {
    if (st == s) out.push_back(tp);
  }
  return out;
}

PartitionState ControllerContext::partition_state(const TopicPartition& tp) const {
  auto it = partition_states.find(tp);
  return it == partition_states.end() ? PartitionState::kNonExistent : it->second;
}

ReplicaState ControllerContext::replica_state(const PartitionReplica& r) const {
  auto it = replica_states.find(r);
  return it == replica_states.end() ? ReplicaState::kNonExistent : it->second;
}

namespace {
std::vector<int32_t> without(const std::vector<int32_t>& all, const std::vector<int32_t>& drop) {
  std::vector<int32_t> out;
  for (int32_t r : all)
    if (std::find(drop.begin(), drop.end(), r) == drop.end()) out.push_back(r);
  return out;
}
}  // namespace

std::vector<int32_t> ControllerContext::origin_replicas(const TopicPartition& tp) const {
  auto it = reassigning.find(tp);
  return it == reassigning.end() ? replicas(tp) : without(replicas(tp), it->second.adding);
}

std::vector<int32_t> ControllerContext::target_replicas(const TopicPartition& tp) const {
  auto it = reassigning.find(tp);
  return it == reassigning.end() ? replicas(tp) : without(replicas(tp), it->second.removing);
}

void ControllerContext::remove_topic(const std::string& topic) {
  for (const auto& tp : partitions_of(topic)) {
    leadership.erase(tp);
    partition_states.erase(tp);
    assignment.erase(tp);
    reassigning.erase(tp);
    zk_reassigning.erase(tp);
  }
  for (auto it = replica_states.begin(); it != replica_states.end();) {
    it = it->first.partition.topic == topic ? replica_states.erase(it) : std::next(it);
  }
  for (auto& [broker, offline] : replicas_on_offline_dirs) {
    for (auto it = offline.begin(); it != offline.end();) it = it->topic == topic ? offline.erase(it) : std::next(it);
  }
  topic_ids.erase(topic);
  topics_to_delete.erase(topic);
  topics_ineligible_for_deletion.erase(topic);
}

void ControllerContext::reset() { *this = ControllerContext(); }

}  // namespace spool::cluster::controller
