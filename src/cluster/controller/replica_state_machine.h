// ReplicaStateMachine: Kafka's replica states and their transitions.
//
//   NonExistent -> New                  LeaderAndIsr (is_new) to the replica if
//                                       the partition has a leader (not itself)
//   New|Online|Offline|DeletionIneligible -> Online
//                                       LeaderAndIsr with the cached (same
//                                       epoch) state to the replica
//   New|Online|Offline|DeletionIneligible -> Offline
//                                       StopReplica(delete=false) to it; remove
//                                       it from the ISR in ZooKeeper (leader -1
//                                       if it led; a last ISR member is kept),
//                                       leader epoch + 1, conditional write
//                                       (BADVERSION: re-read, retry);
//                                       LeaderAndIsr to the other replicas
//                                       (unless the topic is being deleted)
//   Offline -> DeletionStarted          StopReplica(delete=true)
//   DeletionStarted -> DeletionSuccessful
//   Offline|DeletionStarted -> DeletionIneligible
//   DeletionSuccessful -> NonExistent   the replica leaves the assignment
//
// Contract: as PartitionStateMachine (one batch per handle(); invalid
// transitions are logged and skipped; a fenced write stops the call).
// Threading: event thread only.
#pragma once

#include <vector>

#include "cluster/controller/broker_channel.h"
#include "cluster/controller/controller_config.h"
#include "cluster/controller/controller_context.h"
#include "cluster/controller/controller_zk.h"
#include "cluster/controller/request_batch.h"

namespace spool::cluster::controller {

class ReplicaStateMachine {
 public:
  ReplicaStateMachine(ControllerContext& ctx, ControllerZk& zk, RequestBatch& batch, BrokerChannel& channel,
                      const ControllerConfig& config)
      : ctx_(ctx), zk_(zk), batch_(batch), channel_(channel), config_(config) {}

  // Failover: online replicas (is_replica_online) -> Online, the others are marked
  // DeletionIneligible and then moved to Offline (Kafka's startup).
  void startup();
  void handle(const std::vector<PartitionReplica>& replicas, ReplicaState target);

  static bool valid_transition(ReplicaState from, ReplicaState to);

 private:
  void handle_one_broker(int32_t replica_id, const std::vector<PartitionReplica>& replicas, ReplicaState target);
  // Removes replica_id from the ISR of each partition in ZooKeeper; returns
  // the partitions whose new state was written (or already lacked it).
  std::vector<TopicPartition> remove_from_isr(int32_t replica_id, const std::vector<TopicPartition>& partitions);

  ControllerContext& ctx_;
  ControllerZk& zk_;
  RequestBatch& batch_;
  BrokerChannel& channel_;
  const ControllerConfig& config_;
};

}  // namespace spool::cluster::controller
