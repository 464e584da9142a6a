#include "cluster/controller/replica_state_machine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

namespace spool::cluster::controller {
namespace {

constexpr int kMaxIsrRounds = 50;

using RS = ReplicaState;

}  // namespace

bool ReplicaStateMachine::valid_transition(ReplicaState from, ReplicaState to) {
  switch (to) {
    case RS::kNew: return from == RS::kNonExistent;
    case RS::kOnline:
    case RS::kOffline:
      return from == RS::kNew || from == RS::kOnline || from == RS::kOffline || from == RS::kDeletionIneligible;
    case RS::kDeletionStarted: return from == RS::kOffline;
    case RS::kDeletionSuccessful: return from == RS::kDeletionStarted;
    case RS::kDeletionIneligible: return from == RS::kOffline || from == RS::kDeletionStarted;
    case RS::kNonExistent: return from == RS::kDeletionSuccessful;
  }
  return false;
}

void ReplicaStateMachine::startup() {
  std::vector<PartitionReplica> online;
  std::vector<PartitionReplica> offline;
  for (const auto& [tp, replicas] : ctx_.assignment) {
    for (int32_t r : replicas) {
      PartitionReplica pr{tp, r};
      if (ctx_.is_replica_online(r, tp)) {
        ctx_.replica_states[pr] = RS::kOnline;
        online.push_back(pr);
      } else {
        ctx_.replica_states[pr] = RS::kDeletionIneligible;
        offline.push_back(pr);
      }
    }
  }
  handle(online, RS::kOnline);
  handle(offline, RS::kOffline);
}

void ReplicaStateMachine::handle(const std::vector<PartitionReplica>& replicas, ReplicaState target) {
  if (replicas.empty()) return;
  batch_.clear();
  std::map<int32_t, std::vector<PartitionReplica>> by_broker;
  for (const auto& r : replicas) by_broker[r.replica].push_back(r);
  for (const auto& [id, list] : by_broker) {
    if (zk_.fenced()) break;
    handle_one_broker(id, list, target);
  }
  if (zk_.fenced()) {
    batch_.clear();
    return;
  }
  batch_.send(channel_, ctx_.epoch);
}

void ReplicaStateMachine::handle_one_broker(int32_t replica_id, const std::vector<PartitionReplica>& replicas,
                                            ReplicaState target) {
  std::vector<PartitionReplica> valid;
  for (const auto& r : replicas) {
    RS from = ctx_.replica_state(r);
    if (!valid_transition(from, target)) {
      spdlog::error("controller {} epoch {}: replica {} of {} should not move from {} to {}", config_.broker_id,
                    ctx_.epoch, replica_id, r.partition.to_string(), replica_state_name(from),
                    replica_state_name(target));
      continue;
    }
    valid.push_back(r);
  }
  switch (target) {
    case RS::kNew:
      for (const auto& r : valid) {
        auto it = ctx_.leadership.find(r.partition);
        if (it != ctx_.leadership.end()) {
          if (it->second.leader_and_isr.leader == replica_id) {
            spdlog::error("controller: replica {} of {} cannot become New: it is the leader", replica_id,
                          r.partition.to_string());
            continue;
          }
          batch_.add_leader_and_isr({replica_id}, r.partition, it->second, ctx_.replicas(r.partition), true);
        }
        ctx_.replica_states[r] = RS::kNew;
      }
      break;
    case RS::kOnline:
      for (const auto& r : valid) {
        if (ctx_.replica_state(r) != RS::kNew) {
          auto it = ctx_.leadership.find(r.partition);
          if (it != ctx_.leadership.end()) {
            batch_.add_leader_and_isr({replica_id}, r.partition, it->second, ctx_.replicas(r.partition), false);
          }
        }
        ctx_.replica_states[r] = RS::kOnline;
      }
      break;
    case RS::kOffline: {
      std::vector<TopicPartition> with_leadership;
      for (const auto& r : valid) {
        batch_.add_stop_replica({replica_id}, r.partition, false);
        if (ctx_.leadership.count(r.partition) != 0) {
          with_leadership.push_back(r.partition);
        } else {
          ctx_.replica_states[r] = RS::kOffline;
          std::vector<int32_t> all;
          for (const auto& [id, info] : ctx_.brokers) all.push_back(id);
          batch_.add_update_metadata(all, {r.partition});
        }
      }
      for (const auto& tp : remove_from_isr(replica_id, with_leadership)) {
        if (!ctx_.queued_for_deletion(tp.topic)) {
          std::vector<int32_t> others;
          for (int32_t x : ctx_.replicas(tp)) {
            if (x != replica_id) others.push_back(x);
          }
          batch_.add_leader_and_isr(others, tp, ctx_.leadership[tp], ctx_.replicas(tp), false);
        }
        ctx_.replica_states[PartitionReplica{tp, replica_id}] = RS::kOffline;
      }
      break;
    }
    case RS::kDeletionStarted:
      for (const auto& r : valid) {
        ctx_.replica_states[r] = RS::kDeletionStarted;
        batch_.add_stop_replica({replica_id}, r.partition, true);
      }
      break;
    case RS::kDeletionIneligible:
    case RS::kDeletionSuccessful:
      for (const auto& r : valid) ctx_.replica_states[r] = target;
      break;
    case RS::kNonExistent:
      for (const auto& r : valid) {
        auto it = ctx_.assignment.find(r.partition);
        if (it != ctx_.assignment.end()) {
          auto& reps = it->second;
          reps.erase(std::remove(reps.begin(), reps.end(), replica_id), reps.end());
        }
        ctx_.replica_states.erase(r);
      }
      break;
  }
}

std::vector<TopicPartition> ReplicaStateMachine::remove_from_isr(int32_t replica_id,
                                                                 const std::vector<TopicPartition>& partitions) {
  std::vector<TopicPartition> done;
  std::vector<TopicPartition> remaining = partitions;
  for (int round = 0; !remaining.empty(); ++round) {
    if (round == kMaxIsrRounds || zk_.fenced()) break;
    std::vector<TopicPartition> retry;
    for (const auto& tp : remaining) {
      if (zk_.fenced()) return done;
      auto read = zk_.partition_state(tp);
      if (!read.is_ok()) {
        spdlog::error("controller: removing replica {} from the ISR of {}: {}", replica_id, tp.to_string(),
                      read.error().message);
        continue;
      }
      if (!read.value()) {
        if (!ctx_.queued_for_deletion(tp.topic)) {
          spdlog::error("controller: replica {} of {} -> Offline failed: no /state in ZooKeeper", replica_id,
                        tp.to_string());
        }
        continue;
      }
      PartitionLeadership cur = *read.value();
      if (cur.controller_epoch > ctx_.epoch) {
        spdlog::error("controller {} epoch {}: /state of {} written by controller epoch {}; aborting",
                      config_.broker_id, ctx_.epoch, tp.to_string(), cur.controller_epoch);
        continue;
      }
      const auto& isr = cur.leader_and_isr.isr;
      if (std::find(isr.begin(), isr.end(), replica_id) == isr.end()) {
        // Not in the ISR: nothing to write, the cache takes what ZK has.
        cur.controller_epoch = ctx_.epoch;
        ctx_.leadership[tp] = PartitionLeadership{cur.leader_and_isr, ctx_.epoch};
        done.push_back(tp);
        continue;
      }
      LeaderAndIsr next = cur.leader_and_isr;
      if (next.leader == replica_id) next.leader = kNoLeader;
      if (isr.size() > 1) next.isr.erase(std::remove(next.isr.begin(), next.isr.end(), replica_id), next.isr.end());
      next.leader_epoch += 1;
      int32_t version = 0;
      ZkWrite w = zk_.update_partition_state(tp, next, ctx_.epoch, &version);
      if (w == ZkWrite::kBadVersion) {
        retry.push_back(tp);
        continue;
      }
      if (w != ZkWrite::kOk) {
        spdlog::error("controller: removing replica {} from the ISR of {}: {}", replica_id, tp.to_string(),
                      zk_write_name(w));
        continue;
      }
      next.partition_epoch = version;
      ctx_.leadership[tp] = PartitionLeadership{next, ctx_.epoch};
      done.push_back(tp);
    }
    remaining = std::move(retry);
  }
  return done;
}

}  // namespace spool::cluster::controller
