// MetadataCache: a broker's view of the cluster as the controller last told
// it (Kafka's ZkMetadataCache, filled from UpdateMetadata): the live brokers
// with their endpoints and racks, the controller, and per partition its
// leader, leader epoch, replicas, ISR and offline replicas. Metadata,
// FindCoordinator and DescribeCluster answer from it; it lags the controller,
// and two brokers may disagree for a moment (clients keep the entry with the
// higher leader epoch).
//
// Contract
// - apply() is Kafka's UpdateMetadata semantics: the live-broker set is
//   replaced; partition states are upserted; a state whose leader is
//   kLeaderDuringDelete (-2) removes the partition (the topic is being
//   deleted); a topic left with no partitions disappears. An update whose
//   controller epoch is below the highest applied is refused (the handler
//   answers STALE_CONTROLLER_EPOCH) and changes nothing.
// - Reads return copies or snapshots, never references into the cache.
// - describe_partition() applies Kafka's rules for what clients see: a
//   leader that is -1 or not live answers LEADER_NOT_AVAILABLE with leader
//   -1; replicas and ISR are listed in full (Metadata v1+); offline replicas
//   are the controller's list plus any replica whose broker is not live here.
// Threading: one writer at a time (the UpdateMetadata handler, serialised by
// the caller or by the internal mutex), any number of readers from reactor
// threads. Readers take a shared_ptr snapshot under a short lock and read it
// without holding any; apply() builds the next snapshot and swaps it in.
// Failure: none beyond the stale-epoch refusal.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/zk_data.h"
#include "util/topic_partition.h"

namespace spool::cluster {

// UpdateMetadata's leader of a partition whose topic is being deleted.
inline constexpr int32_t kLeaderDuringDelete = -2;

struct LiveBroker {
  int32_t id = -1;
  std::vector<EndPoint> endpoints;  // zk_data.h's endpoint (listener, host, port, protocol)
  std::optional<std::string> rack;
  bool operator==(const LiveBroker&) const = default;
};

// One partition's state as UpdateMetadata carries it.
struct PartitionMetadata {
  TopicPartition tp;
  TopicId topic_id{};  // KIP-516; all zero when unknown
  int32_t controller_epoch = 0;
  int32_t leader = kNoLeader;
  int32_t leader_epoch = 0;
  std::vector<int32_t> isr;
  int32_t partition_epoch = 0;  // ZooKeeper's zkVersion of the state znode
  std::vector<int32_t> replicas;
  std::vector<int32_t> offline_replicas;
  bool operator==(const PartitionMetadata&) const = default;
};

struct MetadataUpdate {
  int32_t controller_id = -1;
  int32_t controller_epoch = 0;
  std::vector<PartitionMetadata> partitions;
  std::vector<LiveBroker> live_brokers;
};

// What a client is told about one partition (Metadata's partition entry).
struct PartitionView {
  int16_t error_code = 0;  // 0, LEADER_NOT_AVAILABLE (5)
  int32_t leader = kNoLeader;
  int32_t leader_epoch = 0;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
  std::vector<int32_t> offline_replicas;
};

class MetadataCache {
 public:
  // True when applied; false (nothing changed) when the update's controller
  // epoch is below the highest applied one.
  bool apply(const MetadataUpdate& update);

  int32_t controller_id() const { return snapshot()->controller_id; }
  int32_t controller_epoch() const { return snapshot()->controller_epoch; }
  std::vector<LiveBroker> live_brokers() const;
  std::optional<LiveBroker> broker(int32_t id) const;
  bool is_live(int32_t id) const;
  // The broker's endpoint on `listener`, if it is live and has one.
  std::optional<EndPoint> endpoint(int32_t id, const std::string& listener) const;

  std::optional<PartitionMetadata> partition(const TopicPartition& tp) const;
  // Every partition of `topic`, by index; empty when the topic is unknown.
  std::vector<PartitionMetadata> topic_partitions(const std::string& topic) const;
  std::vector<std::string> topics() const;
  bool contains_topic(const std::string& topic) const;
  // The topic with this id (KIP-516), if the cache has one; an all-zero id
  // names none.
  std::optional<std::string> topic_name(const TopicId& id) const;

  // The client-facing view of one partition (see the contract above);
  // nullopt when the partition is unknown.
  std::optional<PartitionView> describe_partition(const TopicPartition& tp) const;

 private:
  struct State {
    int32_t controller_id = -1;
    int32_t controller_epoch = 0;
    std::map<int32_t, LiveBroker> brokers;
    std::map<std::string, std::map<int32_t, PartitionMetadata>> topics;
  };
  std::shared_ptr<const State> snapshot() const;

  mutable std::mutex mu_;
  std::shared_ptr<const State> state_ = std::make_shared<State>();
};

}  // namespace spool::cluster
