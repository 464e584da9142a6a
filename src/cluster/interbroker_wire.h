// The receiving broker's side of the controller's requests: the decoded
// LeaderAndIsr / UpdateMetadata / StopReplica wire messages (generated
// protocol structs, any version) turned into plain values the broker
// applies, and the responses built back at the request's version.
//
// Contract
// - Pure functions over values: no I/O, no state, no locks; safe from any
//   thread.
// - Every version is read: UpdateMetadata v0-8 (v0 V0Host/V0Port, v1-2
//   endpoints named after their security protocol, v3+ listener names, v2+
//   rack, v0-4 ungrouped states, v5+ topic states, v7+ topic ids, v4+
//   offline replicas), LeaderAndIsr v0-7 (v0-1 ungrouped states, v2+ topic
//   states, v5+ topic ids, v3+ adding/removing, v1+ is_new, v6+ recovery
//   state), StopReplica v0-4 (v0 ungrouped partitions, v1-2 topics with
//   partition indexes and one DeletePartitions flag for all, v3+ per
//   partition LeaderEpoch and DeletePartition). Fields a version lacks get
//   Kafka's defaults: topic id all zero, leader epoch -1 (NoEpoch: the
//   StopReplica epoch check is bypassed), broker epoch -1.
// - Failure: an UpdateMetadata endpoint with an unknown security protocol id
//   fails the decode (INVALID_REQUEST, with a message); nothing else can
//   fail once the generated decode succeeded.
// - Responses: per-partition errors grouped as the version wants them
//   (LeaderAndIsr v5+ by topic id, taken from the request's partitions).
//   The *_error_response builders are Kafka's getErrorResponse: the
//   top-level error and the same error for every partition of the request.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/metadata_cache.h"
#include "cluster/zk_data.h"
#include "protocol/error_code.h"
#include "protocol/leader_and_isr_request.h"
#include "protocol/leader_and_isr_response.h"
#include "protocol/stop_replica_request.h"
#include "protocol/stop_replica_response.h"
#include "protocol/update_metadata_request.h"
#include "protocol/update_metadata_response.h"
#include "util/status.h"
#include "util/topic_partition.h"

namespace spool::cluster {

// One partition's result, in any response.
struct PartitionErrorCode {
  TopicPartition partition;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  bool operator==(const PartitionErrorCode&) const = default;
};

// ------------------------------------------------------------ UpdateMetadata

struct UpdateMetadataCommand {
  int32_t controller_id = -1;
  int32_t controller_epoch = 0;
  int64_t broker_epoch = -1;      // -1 before v5
  bool is_kraft_controller = false;  // v8+
  int8_t type = 0;                // v8+ tagged (0 unknown, 1 incremental, 2 full)
  MetadataUpdate update;          // controller id/epoch copied in
};
Result<UpdateMetadataCommand> decode_update_metadata(const protocol::UpdateMetadataRequest& request, int16_t version);
protocol::UpdateMetadataResponse update_metadata_response(protocol::ErrorCode error);

// ------------------------------------------------------------- LeaderAndIsr

struct LeaderAndIsrPartitionCommand {
  TopicPartition partition;
  TopicId topic_id{};             // all zero before v5
  int32_t controller_epoch = 0;   // the controller that made the decision
  int32_t leader = kNoLeader;
  int32_t leader_epoch = 0;
  std::vector<int32_t> isr;
  int32_t partition_epoch = 0;    // ZkVersion
  std::vector<int32_t> replicas;
  std::vector<int32_t> adding_replicas;    // v3+
  std::vector<int32_t> removing_replicas;  // v3+
  bool is_new = false;                     // v1+
  int8_t leader_recovery_state = 0;        // v6+: 0 RECOVERED, 1 RECOVERING
  bool operator==(const LeaderAndIsrPartitionCommand&) const = default;
};

struct LiveLeaderEndpoint {
  int32_t broker_id = -1;
  std::string host;
  int32_t port = 0;
  bool operator==(const LiveLeaderEndpoint&) const = default;
};

struct LeaderAndIsrCommand {
  int32_t controller_id = -1;
  int32_t controller_epoch = 0;
  int64_t broker_epoch = -1;      // -1 before v2
  int8_t type = 0;                // v5+: 0 incremental, 1 full
  bool is_kraft_controller = false;  // v7+
  std::vector<LeaderAndIsrPartitionCommand> partitions;  // request order
  std::vector<LiveLeaderEndpoint> live_leaders;
};
LeaderAndIsrCommand decode_leader_and_isr(const protocol::LeaderAndIsrRequest& request, int16_t version);
// `errors` for partitions of `request` (others are still listed; a topic
// without an id in the request groups under the zero id at v5+).
protocol::LeaderAndIsrResponse leader_and_isr_response(const LeaderAndIsrCommand& request, protocol::ErrorCode error,
                                                       const std::vector<PartitionErrorCode>& errors, int16_t version);
protocol::LeaderAndIsrResponse leader_and_isr_error_response(const LeaderAndIsrCommand& request,
                                                             protocol::ErrorCode error, int16_t version);

// -------------------------------------------------------------- StopReplica

inline constexpr int32_t kStopReplicaNoEpoch = -1;        // LeaderAndIsr.NoEpoch
inline constexpr int32_t kStopReplicaEpochDuringDelete = -2;  // LeaderAndIsr.EpochDuringDelete

struct StopReplicaPartitionCommand {
  TopicPartition partition;
  int32_t leader_epoch = kStopReplicaNoEpoch;  // v3+; -1 before
  bool delete_partition = false;               // v3+ per partition; v0-2 the request's flag
  bool operator==(const StopReplicaPartitionCommand&) const = default;
};

struct StopReplicaCommand {
  int32_t controller_id = -1;
  int32_t controller_epoch = 0;
  int64_t broker_epoch = -1;  // -1 before v1
  bool is_kraft_controller = false;  // v4+
  std::vector<StopReplicaPartitionCommand> partitions;  // request order
};
StopReplicaCommand decode_stop_replica(const protocol::StopReplicaRequest& request, int16_t version);
protocol::StopReplicaResponse stop_replica_response(protocol::ErrorCode error,
                                                    const std::vector<PartitionErrorCode>& errors);
protocol::StopReplicaResponse stop_replica_error_response(const StopReplicaCommand& request,
                                                          protocol::ErrorCode error);

}  // namespace spool::cluster
