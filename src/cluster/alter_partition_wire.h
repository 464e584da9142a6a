// The broker -> controller requests on the wire, leader side: AlterPartition
// (KIP-497, v0-3) and ControlledShutdown (v3), built from plain values and
// their responses parsed back (Kafka's AlterPartitionManager.buildRequest /
// handleAlterPartitionResponse and KafkaServer.controlledShutdown).
//
// Contract
// - Pure functions; safe from any thread.
// - AlterPartition versions: v0-1 name topics, v2+ carry topic ids (so v2+ is
//   usable only when every entry has a non-zero topic id:
//   alter_partition_max_version()); v1+ carry LeaderRecoveryState; v3
//   carries NewIsrWithEpochs, where a ZooKeeper-mode leader sends every
//   member's broker epoch as -1 (Kafka's Partition.addBrokerEpochToIsr for a
//   ZkMetadataCache), v0-2 NewIsr.
// - Responses are mapped back to the request's entries (v2+ topic ids to the
//   names the request used). A response partition the request did not hold
//   is ignored; a request entry missing from the response is reported in
//   `missing` (the sender re-sends it, as Kafka does).
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/zk_data.h"
#include "protocol/alter_partition_request.h"
#include "protocol/alter_partition_response.h"
#include "protocol/controlled_shutdown_request.h"
#include "protocol/controlled_shutdown_response.h"
#include "protocol/error_code.h"
#include "util/topic_partition.h"

namespace spool::cluster {

// One partition's proposed state (the leader's pending ISR change).
struct AlterPartitionEntry {
  TopicPartition partition;
  TopicId topic_id{};            // all zero: unknown (only v0-1 then)
  int32_t leader_epoch = 0;
  std::vector<int32_t> new_isr;
  int32_t partition_epoch = 0;
  int8_t leader_recovery_state = 0;  // 0 RECOVERED, 1 RECOVERING
  bool operator==(const AlterPartitionEntry&) const = default;
};

// The controller's answer for one partition: an error, or the state it wrote.
struct AlterPartitionOutcome {
  TopicPartition partition;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  int32_t leader = kNoLeader;
  int32_t leader_epoch = 0;
  std::vector<int32_t> isr;
  int32_t partition_epoch = 0;
  int8_t leader_recovery_state = 0;
  bool operator==(const AlterPartitionOutcome&) const = default;
};

struct AlterPartitionReply {
  protocol::ErrorCode error = protocol::ErrorCode::kNone;  // top-level
  std::vector<AlterPartitionOutcome> partitions;           // request order
  std::vector<TopicPartition> missing;                     // sent, not answered
};

// 3 when every entry has a topic id, else 1.
int16_t alter_partition_max_version(const std::vector<AlterPartitionEntry>& entries);
// Entries grouped by topic (first-seen order). At v2+ an entry without a
// topic id is sent with the zero id (callers cap the version first).
protocol::AlterPartitionRequest alter_partition_request(int32_t broker_id, int64_t broker_epoch,
                                                        const std::vector<AlterPartitionEntry>& entries,
                                                        int16_t version);
AlterPartitionReply parse_alter_partition_response(const protocol::AlterPartitionResponse& response, int16_t version,
                                                   const std::vector<AlterPartitionEntry>& request);

struct ControlledShutdownReply {
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  std::vector<TopicPartition> remaining;  // partitions still led here
  bool operator==(const ControlledShutdownReply&) const = default;
};
inline constexpr int16_t kControlledShutdownVersion = 3;
protocol::ControlledShutdownRequest controlled_shutdown_request(int32_t broker_id, int64_t broker_epoch);
ControlledShutdownReply parse_controlled_shutdown_response(const protocol::ControlledShutdownResponse& response);

}  // namespace spool::cluster
