// ReplicaManager, cluster mode: LeaderAndIsr and StopReplica.
#include "broker/replica_manager.h"

namespace spool::broker {

std::vector<PartitionOutcome> ReplicaManager::become_leader_or_follower(const cluster::LeaderAndIsrCommand& command,
                                                                        int32_t /*local_broker_id*/) {
  std::vector<PartitionOutcome> out;
  out.reserve(command.partitions.size());
  for (const auto& p : command.partitions) out.push_back({p.partition, protocol::ErrorCode::kUnknownServerError});
  return out;
}

std::vector<PartitionOutcome> ReplicaManager::stop_replicas(const cluster::StopReplicaCommand& command) {
  std::vector<PartitionOutcome> out;
  out.reserve(command.partitions.size());
  for (const auto& p : command.partitions) out.push_back({p.partition, protocol::ErrorCode::kUnknownServerError});
  return out;
}

}  // namespace spool::broker
