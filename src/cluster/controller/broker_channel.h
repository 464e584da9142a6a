// The controller -> broker channel (Kafka's ControllerChannelManager): the
// request values the controller emits, the responses it gets back, and the
// BrokerChannel port they travel through.
//
// Contract
// - Requests are plain values with Kafka's field names (LeaderAndIsr v7,
//   UpdateMetadata v8, StopReplica v4 in the comments); an adapter outside this
//   module turns them into wire messages. Nothing here knows the wire.
// - BrokerChannel keeps one ordered queue per broker with ONE request in
//   flight; a failed send is retried (the same request, in order) until the
//   broker is removed. remove_broker() drops the queue; a late response of a
//   removed broker is discarded. send() to an unknown broker drops the
//   request (logged): Kafka does the same for a broker without a channel.
// - Responses are handed to the ResponseHandler on a channel/transport
//   thread: the handler must only enqueue a controller event and return.
// - QueuedBrokerChannel (queued_broker_channel.h) implements the queueing on
//   top of a BrokerTransport that sends one request asynchronously; tests use
//   it with the fake transport in tests/unit/cluster/controller.
// Threading: every BrokerChannel method may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cluster/controller/controller_context.h"
#include "protocol/error_code.h"
#include "util/topic_partition.h"

namespace spool::cluster::controller {

// LeaderAndIsrRequest.PartitionStates[] (LeaderAndIsrPartitionState).
struct LeaderAndIsrPartition {
  TopicPartition partition;            // TopicName, PartitionIndex
  int32_t controller_epoch = 0;        // ControllerEpoch: the controller that wrote /state
  int32_t leader = kNoLeader;          // Leader
  int32_t leader_epoch = 0;            // LeaderEpoch
  std::vector<int32_t> isr;            // Isr
  int32_t partition_epoch = 0;         // PartitionEpoch (ZkVersion before v6)
  std::vector<int32_t> replicas;       // Replicas
  std::vector<int32_t> adding_replicas;    // AddingReplicas
  std::vector<int32_t> removing_replicas;  // RemovingReplicas
  bool is_new = false;                 // IsNew
  LeaderRecoveryState leader_recovery_state = LeaderRecoveryState::kRecovered;  // LeaderRecoveryState (v6+)
  bool operator==(const LeaderAndIsrPartition&) const = default;
};

// LeaderAndIsrRequest.LiveLeaders[].
struct LiveLeader {
  int32_t broker_id = -1;  // BrokerId
  std::string host_name;   // HostName
  int32_t port = 0;        // Port
  bool operator==(const LiveLeader&) const = default;
};

struct LeaderAndIsrRequest {
  int32_t controller_id = -1;     // ControllerId
  int32_t controller_epoch = 0;   // ControllerEpoch
  int64_t broker_epoch = -1;      // BrokerEpoch: the recipient's epoch (-1 unknown)
  int8_t type = 0;                // Type (v5+): 0 incremental; the ZK controller never sends 1
  std::vector<LeaderAndIsrPartition> partition_states;  // TopicStates[].PartitionStates[]
  std::vector<std::pair<std::string, TopicId>> topic_ids;  // TopicStates[].{TopicName, TopicId}
  std::vector<LiveLeader> live_leaders;                   // LiveLeaders
};

// UpdateMetadataRequest.TopicStates[].PartitionStates[].
struct UpdateMetadataPartition {
  TopicPartition partition;             // TopicName, PartitionIndex
  int32_t controller_epoch = 0;         // ControllerEpoch
  int32_t leader = kNoLeader;           // Leader (-2 while the topic is being deleted)
  int32_t leader_epoch = 0;             // LeaderEpoch
  std::vector<int32_t> isr;             // Isr
  int32_t zk_version = 0;               // ZkVersion (= partition epoch)
  std::vector<int32_t> replicas;        // Replicas
  std::vector<int32_t> offline_replicas;  // OfflineReplicas
  bool operator==(const UpdateMetadataPartition&) const = default;
};

struct UpdateMetadataRequest {
  int32_t controller_id = -1;    // ControllerId
  int32_t controller_epoch = 0;  // ControllerEpoch
  int64_t broker_epoch = -1;     // BrokerEpoch: the recipient's
  std::vector<UpdateMetadataPartition> partition_states;
  std::vector<std::pair<std::string, TopicId>> topic_ids;  // TopicStates[].{TopicName, TopicId}
  // LiveBrokers[]: {Id, Endpoints[]{Port, Host, Listener, SecurityProtocol}, Rack}
  std::vector<BrokerInfo> live_brokers;
};

// StopReplicaRequest.TopicStates[].PartitionStates[].
struct StopReplicaPartition {
  TopicPartition partition;  // TopicName, PartitionIndex
  int32_t leader_epoch = -1; // LeaderEpoch: -2 = topic being deleted, -1 = no epoch
  bool delete_partition = false;  // DeletePartition
  bool operator==(const StopReplicaPartition&) const = default;
};

struct StopReplicaRequest {
  int32_t controller_id = -1;    // ControllerId
  int32_t controller_epoch = 0;  // ControllerEpoch
  int64_t broker_epoch = -1;     // BrokerEpoch
  std::vector<StopReplicaPartition> partitions;
};

using ControllerRequest = std::variant<LeaderAndIsrRequest, UpdateMetadataRequest, StopReplicaRequest>;
// "LeaderAndIsr", "UpdateMetadata", "StopReplica".
const char* request_name(const ControllerRequest& r);

struct PartitionError {
  TopicPartition partition;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  bool operator==(const PartitionError&) const = default;
};

// A broker's answer to one request: ErrorCode plus per-partition errors
// (LeaderAndIsr's PartitionErrors, StopReplica's PartitionErrors; empty for
// UpdateMetadata). The ResponseHandler gets it with the request it answers.
struct ControllerResponse {
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  std::vector<PartitionError> partition_errors;
};

using ResponseHandler =
    std::function<void(int32_t broker, const ControllerRequest& request, const ControllerResponse& response)>;

class BrokerChannel {
 public:
  virtual ~BrokerChannel() = default;
  // Opens (or reopens, for a bounced broker) the queue of broker.id.
  virtual void add_broker(const BrokerInfo& broker) = 0;
  // Drops the queue and whatever is in it or in flight.
  virtual void remove_broker(int32_t broker) = 0;
  virtual bool has_broker(int32_t broker) const = 0;
  // Queues `request` behind everything already queued for `broker`.
  virtual void send(int32_t broker, ControllerRequest request) = 0;
  virtual void set_response_handler(ResponseHandler handler) = 0;
  // Removes every broker (resignation).
  virtual void remove_all() = 0;
};

}  // namespace spool::cluster::controller
