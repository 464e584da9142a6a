// Epoch fencing of the controller's requests on the receiving broker
// (Kafka's KafkaApis.isBrokerEpochStale and the checks at the top of
// ReplicaManager.becomeLeaderOrFollower / stopReplicas /
// maybeUpdateMetadataCache), as pure decisions over plain values.
//
// Request level (ControllerEpochGate::admit), in Kafka's order:
//   1. BrokerEpoch -1 (not sent) is accepted; below our own epoch ->
//      STALE_BROKER_EPOCH (a request for an earlier registration of this
//      broker); above ours is accepted (KAFKA-9839: the controller may learn
//      the new epoch before the broker does).
//   2. ControllerEpoch below the highest seen -> STALE_CONTROLLER_EPOCH for
//      the whole request: nothing of it may be applied.
//   3. Otherwise accepted, and the highest controller epoch seen becomes the
//      request's (Kafka updates it for all three request types).
// Partition level, after admission:
//   LeaderAndIsr (decide_leader_and_isr), per partition in request order:
//     offline log dir -> KAFKA_STORAGE_ERROR; request topic id and local
//     topic id both known and different -> INCONSISTENT_TOPIC_ID; leader
//     epoch <= current -> STALE_CONTROLLER_EPOCH (Kafka's choice of code,
//     nothing applied); we are not in Replicas -> UNKNOWN_TOPIC_OR_PARTITION;
//     partition epoch below the current one -> skipped with NONE (Kafka's
//     Partition.makeLeader/makeFollower return early); else apply, NONE.
//     A partition not hosted yet has current leader epoch -1 (Kafka creates
//     it with LeaderAndIsr.InitialLeaderEpoch - 1), so epoch 0 applies.
//   StopReplica (decide_stop_replica): offline -> KAFKA_STORAGE_ERROR;
//     leader epoch -2 (EpochDuringDelete) or -1 (NoEpoch) bypasses the check;
//     >= current stops (and deletes when asked); lower -> FENCED_LEADER_EPOCH;
//     not hosted -> stop (delete leftovers), NONE.
// Threading: ControllerEpochGate is a plain value, not thread-safe; the
// broker serialises control requests (Kafka's replicaStateChangeLock). The
// free functions are pure.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "cluster/interbroker_wire.h"
#include "protocol/error_code.h"
#include "util/topic_partition.h"

namespace spool::cluster {

class ControllerEpochGate {
 public:
  ControllerEpochGate() = default;
  ControllerEpochGate(int64_t broker_epoch, int32_t controller_epoch)
      : broker_epoch_(broker_epoch), controller_epoch_(controller_epoch) {}

  int64_t broker_epoch() const { return broker_epoch_; }
  int32_t controller_epoch() const { return controller_epoch_; }
  // Our registration's epoch (czxid of /brokers/ids/N), after each
  // (re-)registration.
  void set_broker_epoch(int64_t epoch) { broker_epoch_ = epoch; }

  // The verdict without changing anything: kNone, kStaleBrokerEpoch or
  // kStaleControllerEpoch.
  protocol::ErrorCode check(int32_t request_controller_epoch, int64_t request_broker_epoch) const;
  // check(), and on kNone raises the highest controller epoch seen.
  protocol::ErrorCode admit(int32_t request_controller_epoch, int64_t request_broker_epoch);

 private:
  int64_t broker_epoch_ = -1;
  int32_t controller_epoch_ = 0;
};

// What the broker hosts for one partition now.
struct HostedPartitionState {
  int32_t leader_epoch = -1;
  int32_t partition_epoch = -1;
  TopicId topic_id{};   // all zero: unknown (no partition.metadata yet)
  bool offline = false; // its log dir failed
};
// nullopt: the partition is not hosted here.
using HostedStateLookup = std::function<std::optional<HostedPartitionState>(const TopicPartition&)>;

enum class PartitionAction {
  kApply,   // become leader/follower (LeaderAndIsr) or stop (StopReplica)
  kSkip,    // valid but nothing to do (older partition epoch); answer NONE
  kReject,  // answer `error`
};

struct LeaderAndIsrDecision {
  TopicPartition partition;
  PartitionAction action = PartitionAction::kReject;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  bool operator==(const LeaderAndIsrDecision&) const = default;
};
std::vector<LeaderAndIsrDecision> decide_leader_and_isr(const LeaderAndIsrCommand& request, int32_t local_broker_id,
                                                        const HostedStateLookup& hosted);

struct StopReplicaDecision {
  TopicPartition partition;
  PartitionAction action = PartitionAction::kReject;  // kApply or kReject
  bool delete_partition = false;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  bool operator==(const StopReplicaDecision&) const = default;
};
std::vector<StopReplicaDecision> decide_stop_replica(const StopReplicaCommand& request,
                                                     const HostedStateLookup& hosted);

// The per-partition errors of a set of decisions (for the response builders).
std::vector<PartitionErrorCode> decision_errors(const std::vector<LeaderAndIsrDecision>& decisions);
std::vector<PartitionErrorCode> decision_errors(const std::vector<StopReplicaDecision>& decisions);

}  // namespace spool::cluster
