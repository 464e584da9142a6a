// ControllerContext: the active controller's cached view of the cluster
// (Kafka's ControllerContext): live brokers with their epochs, endpoints and
// racks; brokers in controlled shutdown; replicas on offline log dirs
// (KIP-112); topics with ids and assignments;
// per-partition leadership as last written to /state; partition and replica
// states; topics queued for deletion; the controller epoch and its zkVersion.
//
// Contract
// - A plain data holder plus lookups. It is owned by the Controller and only
//   touched on the controller's event thread: no locks, not thread-safe.
// - It mirrors ZooKeeper: it is filled on failover from a full read and
//   updated only after a ZooKeeper write succeeded (never ahead of it).
// - reset() empties everything (resignation).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/topic_partition.h"

namespace spool::cluster::controller {

using TopicId = std::array<uint8_t, 16>;

inline constexpr int32_t kNoLeader = -1;
// UpdateMetadata's leader for a partition whose topic is being deleted.
inline constexpr int32_t kLeaderDuringDelete = -2;
// /controller_epoch before any controller: "0"; the first controller is 1.
inline constexpr int32_t kInitialControllerEpoch = 1;

struct BrokerEndpoint {
  std::string listener;           // "PLAINTEXT"
  std::string host;
  int32_t port = 0;
  std::string security_protocol;  // "PLAINTEXT"
  bool operator==(const BrokerEndpoint&) const = default;
};

struct BrokerInfo {
  int32_t id = -1;
  int64_t epoch = 0;  // czxid of /brokers/ids/N (KIP-380)
  std::vector<BrokerEndpoint> endpoints;
  std::optional<std::string> rack;
  bool operator==(const BrokerInfo&) const = default;
};

enum class LeaderRecoveryState : int8_t { kRecovered = 0, kRecovering = 1 };

// One partition's /state content plus its zkVersion (= partition epoch).
struct LeaderAndIsr {
  int32_t leader = kNoLeader;
  int32_t leader_epoch = 0;
  std::vector<int32_t> isr;
  LeaderRecoveryState recovery = LeaderRecoveryState::kRecovered;
  int32_t partition_epoch = 0;  // the /state znode's version

  bool operator==(const LeaderAndIsr&) const = default;
  // Kafka's equalsAllowStalePartitionEpoch: same leader, epoch, ISR (as a
  // set) and recovery state; the partition epoch is not compared.
  bool same_state_as(const LeaderAndIsr& other) const;
};

struct PartitionLeadership {
  LeaderAndIsr leader_and_isr;
  int32_t controller_epoch = 0;  // the controller that wrote it
  bool operator==(const PartitionLeadership&) const = default;
};

// Kafka's partition states (PartitionStateMachine).
enum class PartitionState { kNonExistent, kNew, kOnline, kOffline };
const char* partition_state_name(PartitionState s);

// Kafka's replica states (ReplicaStateMachine).
enum class ReplicaState {
  kNonExistent,
  kNew,
  kOnline,
  kOffline,
  kDeletionStarted,
  kDeletionSuccessful,
  kDeletionIneligible,
};
const char* replica_state_name(ReplicaState s);

struct PartitionReplica {
  TopicPartition partition;
  int32_t replica = -1;
  auto operator<=>(const PartitionReplica&) const = default;
  bool operator==(const PartitionReplica&) const = default;
};

// A partition being reassigned (KIP-455). While it is, the context's
// assignment is the full replica set RS = target ++ origin (deduplicated, in
// that order); `adding` = RS - origin, `removing` = RS - target, as the topic
// znode's adding_replicas / removing_replicas hold them.
struct Reassignment {
  std::vector<int32_t> adding;
  std::vector<int32_t> removing;
  bool operator==(const Reassignment&) const = default;
};

class ControllerContext {
 public:
  // Controller epoch and the /controller_epoch znode version it was written at.
  int32_t epoch = 0;
  int32_t epoch_zk_version = 0;

  // --- brokers
  // Every registered broker (live or shutting down), by id.
  std::map<int32_t, BrokerInfo> brokers;
  std::set<int32_t> shutting_down;

  // Live and not shutting down (Kafka's liveBrokerIds).
  std::set<int32_t> live_broker_ids() const;
  std::set<int32_t> live_or_shutting_down_ids() const;
  bool is_live(int32_t broker) const { return brokers.count(broker) != 0 && shutting_down.count(broker) == 0; }
  std::optional<int64_t> broker_epoch(int32_t broker) const;

  // Per broker, the replicas it answered LeaderAndIsr for with
  // KAFKA_STORAGE_ERROR (their log dir is offline; Kafka's
  // replicasOnOfflineDirs). A replica leaves the set when the broker answers
  // NONE for it; a broker's set is dropped when it fails or registers again.
  std::map<int32_t, std::set<TopicPartition>> replicas_on_offline_dirs;
  // Kafka's isReplicaOnline: the broker is live (or, with
  // include_shutting_down, in controlled shutdown) and tp's replica on it is
  // not on an offline log dir.
  bool is_replica_online(int32_t broker, const TopicPartition& tp, bool include_shutting_down = false) const;
  // The brokers of `brokers` whose replica of tp is not on an offline log dir
  // (the per-partition candidate set the elections are given).
  std::set<int32_t> with_online_replica(const TopicPartition& tp, const std::set<int32_t>& brokers) const;

  // --- topics
  std::map<std::string, TopicId> topic_ids;  // every topic known, with its id
  std::map<TopicPartition, std::vector<int32_t>> assignment;
  std::map<TopicPartition, PartitionLeadership> leadership;
  std::map<TopicPartition, PartitionState> partition_states;
  std::map<PartitionReplica, ReplicaState> replica_states;
  std::set<std::string> topics_to_delete;
  // Queued topics whose deletion waits for a broker to come back (a replica
  // failed or was offline); Kafka's topicsIneligibleForDeletion.
  std::set<std::string> topics_ineligible_for_deletion;
  // Partitions being reassigned (their topic znode lists them in
  // adding_replicas / removing_replicas).
  std::map<TopicPartition, Reassignment> reassigning;
  // Reassignments that came from /admin/reassign_partitions (the znode is
  // removed once none is left).
  std::set<TopicPartition> zk_reassigning;

  bool has_topic(const std::string& topic) const { return topic_ids.count(topic) != 0; }
  const std::vector<int32_t>& replicas(const TopicPartition& tp) const;  // empty when unknown
  std::vector<TopicPartition> partitions_of(const std::string& topic) const;
  std::vector<TopicPartition> partitions_on_broker(int32_t broker) const;
  std::vector<PartitionReplica> replicas_on_brokers(const std::set<int32_t>& brokers) const;
  std::vector<PartitionReplica> replicas_of(const std::vector<TopicPartition>& partitions) const;
  // Partitions whose leader is -1 or not an online replica
  // (is_replica_online), skipping topics queued for deletion (Kafka's
  // partitionsWithOfflineLeader).
  std::vector<TopicPartition> partitions_with_offline_leader() const;
  std::vector<TopicPartition> partitions_led_by(int32_t broker) const;
  std::vector<TopicPartition> partitions_in_state(PartitionState s) const;
  PartitionState partition_state(const TopicPartition& tp) const;
  ReplicaState replica_state(const PartitionReplica& r) const;
  bool queued_for_deletion(const std::string& topic) const { return topics_to_delete.count(topic) != 0; }
  bool being_reassigned(const TopicPartition& tp) const { return reassigning.count(tp) != 0; }
  // RS - adding (the replicas before the reassignment) and RS - removing
  // (after it); the assignment itself when not being reassigned.
  std::vector<int32_t> origin_replicas(const TopicPartition& tp) const;
  std::vector<int32_t> target_replicas(const TopicPartition& tp) const;

  void remove_topic(const std::string& topic);
  void reset();
};

}  // namespace spool::cluster::controller
