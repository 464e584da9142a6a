// RequestBatch: collects the LeaderAndIsr, UpdateMetadata and StopReplica
// requests one controller step produces, then sends them per broker in
// Kafka's order: LeaderAndIsr, then UpdateMetadata, then StopReplica
// (Kafka's ControllerBrokerRequestBatch).
//
// Contract
// - LeaderAndIsr carries the partition's adding/removing replicas while it is
//   being reassigned (the context's `reassigning`).
// - Every LeaderAndIsr added for a partition also queues an UpdateMetadata
//   for that partition to every live or shutting-down broker.
// - UpdateMetadata carries the full live-broker list (shutting-down brokers
//   included, as Kafka's liveOrShuttingDownBrokers) and, per partition, the
//   cached leadership (a partition without one is left out); a partition of
//   a topic queued for deletion gets leader -2 (and StopReplica leader epoch
//   -2). OfflineReplicas lists the replicas that are not
//   ControllerContext::is_replica_online (dead or shutting-down broker,
//   offline log dir).
// - Requests go only to brokers that are live or shutting down; broker_epoch
//   is the recipient's epoch from the context at send time.
// - Requests keep their insertion order of partitions within a request.
// Threading: event thread only, like the context it reads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/controller/broker_channel.h"
#include "cluster/controller/controller_context.h"

namespace spool::cluster::controller {

class RequestBatch {
 public:
  // `listener`: inter.broker.listener.name, whose endpoints LeaderAndIsr's
  // live leaders carry (a leader without one is left out; its followers log
  // that they cannot fetch).
  RequestBatch(const ControllerContext& context, int32_t controller_id, std::string listener = "PLAINTEXT")
      : ctx_(context), controller_id_(controller_id), listener_(std::move(listener)) {}

  bool empty() const { return lai_.empty() && um_brokers_.empty() && stop_.empty(); }
  void clear();

  void add_leader_and_isr(const std::vector<int32_t>& brokers, const TopicPartition& tp, const PartitionLeadership& lead,
                          const std::vector<int32_t>& replicas, bool is_new);
  // An UpdateMetadata to each broker with these partitions' states (none:
  // just the live-broker list).
  void add_update_metadata(const std::vector<int32_t>& brokers, const std::vector<TopicPartition>& partitions);
  void add_stop_replica(const std::vector<int32_t>& brokers, const TopicPartition& tp, bool delete_partition);

  // Sends everything (per broker: LeaderAndIsr, UpdateMetadata, StopReplica)
  // with the given controller epoch, then clears.
  void send(BrokerChannel& channel, int32_t controller_epoch);

 private:
  bool addressable(int32_t broker) const;
  std::optional<UpdateMetadataPartition> um_state(const TopicPartition& tp) const;

  const ControllerContext& ctx_;
  int32_t controller_id_;
  std::string listener_;
  // broker -> partition -> state (a later add for the same partition wins,
  // its position stays), kept in first-insertion order.
  std::map<int32_t, std::vector<LeaderAndIsrPartition>> lai_;
  std::set<int32_t> um_brokers_;
  std::map<int32_t, std::vector<TopicPartition>> um_partitions_;
  std::map<int32_t, std::vector<StopReplicaPartition>> stop_;
};

}  // namespace spool::cluster::controller
