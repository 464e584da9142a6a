// The controller's events (Kafka's ControllerEvent subclasses). Store
// watches, the broker channel and the request handlers only build one of
// these and enqueue it; the Controller processes them one at a time on its
// event thread (controller_event_manager.h).
//
// Events that carry a callback (AlterPartition, ControlledShutdown,
// ElectLeaders, Alter/ListReassignments) must get
// exactly one answer: the result when processed, or NOT_CONTROLLER when the
// event is dropped ("preempted") by a resignation or shutdown.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cluster/controller/broker_channel.h"
#include "protocol/error_code.h"
#include "util/topic_partition.h"

namespace spool::cluster::controller {

// AlterPartitionRequest (KIP-497), already resolved to topic names.
struct AlterPartitionItem {
  TopicPartition partition;
  int32_t leader_epoch = 0;     // LeaderEpoch
  std::vector<int32_t> new_isr;  // NewIsr
  LeaderRecoveryState leader_recovery_state = LeaderRecoveryState::kRecovered;  // LeaderRecoveryState
  int32_t partition_epoch = 0;  // PartitionEpoch
};
struct AlterPartitionRequest {
  int32_t broker_id = -1;     // BrokerId (the leader)
  int64_t broker_epoch = -1;  // BrokerEpoch
  std::vector<AlterPartitionItem> partitions;
};
// Per partition: an error, or the state now in ZooKeeper.
struct AlterPartitionItemResult {
  TopicPartition partition;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  LeaderAndIsr state;  // when error == kNone
};
struct AlterPartitionResult {
  protocol::ErrorCode error = protocol::ErrorCode::kNone;  // top-level ErrorCode
  std::vector<AlterPartitionItemResult> partitions;       // in request order
};

// ControlledShutdownResponse: ErrorCode and RemainingPartitions.
struct ControlledShutdownResult {
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  std::vector<TopicPartition> remaining;
};

struct StartupEvent {};
struct ControllerChangeEvent {};  // /controller created or changed
struct ReelectEvent {};           // /controller deleted
struct SessionExpiredEvent {};    // resign now; re-register and re-elect on the new session
struct BrokerChangeEvent {};      // children of /brokers/ids changed
struct BrokerModificationEvent {  // data of /brokers/ids/N changed
  int32_t broker = -1;
};
struct TopicChangeEvent {};  // children of /brokers/topics changed
struct PartitionModificationsEvent {  // data of /brokers/topics/T changed
  std::string topic;
};
struct TopicDeletionEvent {};  // children of /admin/delete_topics changed
struct UncleanLeaderElectionEnableEvent {  // unclean election turned on (topic, or broker-wide when empty)
  std::optional<std::string> topic;
};
struct BrokerResponseEvent {
  int32_t broker = -1;
  ControllerRequest request;
  ControllerResponse response;
};
struct AlterPartitionEvent {
  AlterPartitionRequest request;
  std::function<void(const AlterPartitionResult&)> callback;
};
struct ControlledShutdownEvent {
  int32_t broker = -1;
  int64_t broker_epoch = -1;
  std::function<void(const ControlledShutdownResult&)> callback;
};
// ElectLeaders (KIP-460): the election type of the request.
enum class ElectionType : int8_t { kPreferred = 0, kUnclean = 1 };
// One partition's answer: NONE (then `leader` is the new leader),
// ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
// ELIGIBLE_LEADERS_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION,
// INVALID_TOPIC_EXCEPTION (being deleted) or NOT_CONTROLLER; `message`
// empty when there is none.
struct ElectionResult {
  TopicPartition partition;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  std::string message;
  int32_t leader = -1;
  bool operator==(const ElectionResult&) const = default;
};
struct ElectLeadersEvent {
  ElectionType type = ElectionType::kPreferred;
  std::vector<TopicPartition> partitions;
  std::function<void(const std::vector<ElectionResult>&)> callback;
};
// The periodic preferred-leader check (auto.leader.rebalance.enable).
struct AutoLeaderRebalanceEvent {};
// AlterPartitionReassignments (KIP-455): per partition the target replicas,
// nullopt = cancel the partition's reassignment.
struct ReassignmentItem {
  TopicPartition partition;
  std::optional<std::vector<int32_t>> replicas;
};
// One partition's answer: NONE, INVALID_REPLICA_ASSIGNMENT,
// NO_REASSIGNMENT_IN_PROGRESS, UNKNOWN_TOPIC_OR_PARTITION...
struct ReassignmentResult {
  TopicPartition partition;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  std::string message;
  bool operator==(const ReassignmentResult&) const = default;
};
struct AlterReassignmentsEvent {
  std::vector<ReassignmentItem> items;
  // KIP-860 (v1): false refuses a target whose size differs from the
  // replicas before the reassignment (INVALID_REPLICATION_FACTOR).
  bool allow_replication_factor_change = true;
  // (top-level error: NONE or NOT_CONTROLLER, per-partition results in order)
  std::function<void(protocol::ErrorCode, const std::vector<ReassignmentResult>&)> callback;
};
// ListPartitionReassignments: one ongoing reassignment.
struct OngoingReassignment {
  TopicPartition partition;
  std::vector<int32_t> replicas;  // the full replica set while it runs
  std::vector<int32_t> adding;
  std::vector<int32_t> removing;
  bool operator==(const OngoingReassignment&) const = default;
};
struct ListReassignmentsEvent {
  std::optional<std::vector<TopicPartition>> partitions;  // nullopt: all
  std::function<void(protocol::ErrorCode, const std::vector<OngoingReassignment>&)> callback;
};
// /admin/reassign_partitions was created (legacy tools).
struct ZkReassignmentEvent {};
// Children of /log_dir_event_notification changed (a broker lost a log dir).
struct LogDirEventNotificationEvent {};
// Runs an arbitrary function on the event thread (tests; Kafka's MockEvent).
struct RunEvent {
  std::function<void()> fn;
};

using ControllerEvent =
    std::variant<StartupEvent, ControllerChangeEvent, ReelectEvent, SessionExpiredEvent, BrokerChangeEvent,
                 BrokerModificationEvent, TopicChangeEvent, PartitionModificationsEvent, TopicDeletionEvent,
                 UncleanLeaderElectionEnableEvent, BrokerResponseEvent, AlterPartitionEvent, ControlledShutdownEvent,
                 ElectLeadersEvent, AutoLeaderRebalanceEvent, AlterReassignmentsEvent, ListReassignmentsEvent,
                 ZkReassignmentEvent, LogDirEventNotificationEvent, RunEvent>;

const char* event_name(const ControllerEvent& e);

// Answers the callback of a dropped event with NOT_CONTROLLER (no-op for
// events without one).
void preempt_event(ControllerEvent& e);

}  // namespace spool::cluster::controller
