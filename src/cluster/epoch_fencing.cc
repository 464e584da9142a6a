#include "cluster/epoch_fencing.h"

#include <algorithm>

namespace spool::cluster {

using protocol::ErrorCode;

ErrorCode ControllerEpochGate::check(int32_t request_controller_epoch, int64_t request_broker_epoch) const {
  if (request_broker_epoch != -1 && request_broker_epoch < broker_epoch_) return ErrorCode::kStaleBrokerEpoch;
  if (request_controller_epoch < controller_epoch_) return ErrorCode::kStaleControllerEpoch;
  return ErrorCode::kNone;
}

ErrorCode ControllerEpochGate::admit(int32_t request_controller_epoch, int64_t request_broker_epoch) {
  ErrorCode e = check(request_controller_epoch, request_broker_epoch);
  if (e == ErrorCode::kNone) controller_epoch_ = request_controller_epoch;
  return e;
}

namespace {

bool is_zero(const TopicId& id) {
  return std::all_of(id.begin(), id.end(), [](uint8_t b) { return b == 0; });
}

LeaderAndIsrDecision decide_one(const LeaderAndIsrPartitionCommand& p, int32_t local_broker_id,
                                const std::optional<HostedPartitionState>& hosted) {
  LeaderAndIsrDecision d{p.partition, PartitionAction::kReject, ErrorCode::kNone};
  const HostedPartitionState current = hosted.value_or(HostedPartitionState{});
  if (current.offline) {
    d.error = ErrorCode::kKafkaStorageError;
    return d;
  }
  if (!is_zero(p.topic_id) && !is_zero(current.topic_id) && p.topic_id != current.topic_id) {
    d.error = ErrorCode::kInconsistentTopicId;
    return d;
  }
  if (p.leader_epoch <= current.leader_epoch) {
    d.error = ErrorCode::kStaleControllerEpoch;
    return d;
  }
  if (std::find(p.replicas.begin(), p.replicas.end(), local_broker_id) == p.replicas.end()) {
    d.error = ErrorCode::kUnknownTopicOrPartition;
    return d;
  }
  d.action = p.partition_epoch < current.partition_epoch ? PartitionAction::kSkip : PartitionAction::kApply;
  return d;
}

}  // namespace

std::vector<LeaderAndIsrDecision> decide_leader_and_isr(const LeaderAndIsrCommand& request, int32_t local_broker_id,
                                                        const HostedStateLookup& hosted) {
  std::vector<LeaderAndIsrDecision> out;
  out.reserve(request.partitions.size());
  for (const auto& p : request.partitions) out.push_back(decide_one(p, local_broker_id, hosted(p.partition)));
  return out;
}

std::vector<StopReplicaDecision> decide_stop_replica(const StopReplicaCommand& request,
                                                     const HostedStateLookup& hosted) {
  std::vector<StopReplicaDecision> out;
  out.reserve(request.partitions.size());
  for (const auto& p : request.partitions) {
    StopReplicaDecision d{p.partition, PartitionAction::kApply, p.delete_partition, ErrorCode::kNone};
    std::optional<HostedPartitionState> current = hosted(p.partition);
    if (current) {
      if (current->offline) {
        d.action = PartitionAction::kReject;
        d.error = ErrorCode::kKafkaStorageError;
      } else if (p.leader_epoch != kStopReplicaEpochDuringDelete && p.leader_epoch != kStopReplicaNoEpoch &&
                 p.leader_epoch < current->leader_epoch) {
        d.action = PartitionAction::kReject;
        d.error = ErrorCode::kFencedLeaderEpoch;
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<PartitionErrorCode> decision_errors(const std::vector<LeaderAndIsrDecision>& decisions) {
  std::vector<PartitionErrorCode> out;
  for (const auto& d : decisions) out.push_back({d.partition, d.error});
  return out;
}

std::vector<PartitionErrorCode> decision_errors(const std::vector<StopReplicaDecision>& decisions) {
  std::vector<PartitionErrorCode> out;
  for (const auto& d : decisions) out.push_back({d.partition, d.error});
  return out;
}

}  // namespace spool::cluster
