// ClusterReplication: the wiring of a cluster member's partitions to the
// rest of the cluster (what ReplicaManager::enable_cluster_mode asks for):
// follower partitions fetch from their leader through the
// replica::ReplicaFetcherManager (num.replica.fetchers threads per leader,
// over the member's NetworkClient), a leader's ISR changes go to the
// controller through cluster::AlterPartitionSender and its answers back to
// the partition, liveness comes from the metadata cache; one thread runs
// the ISR shrink pass every replica.lag.time.max.ms / 2 and writes
// replication-offset-checkpoint every
// replica.high.watermark.checkpoint.interval.ms (Kafka's 5000). It owns the
// two replication quotas (KIP-73): the leader's, handed to ReplicaManager,
// and the follower's, handed to the fetchers.
// Lifetime: built after ClusterMember::connect (it uses the member's client,
// timer and cache), hooks() handed to enable_cluster_mode before load();
// start() after load; stop() before the ReplicaManager and the member go
// (it stops fetching first, so no fetcher thread touches a closing log).
// Threading: hooks are called by ReplicaManager on the admin executor and
// by partitions (ISR changes) on any thread; all are thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

#include "broker/broker_settings.h"
#include "broker/cluster_member.h"
#include "broker/replica_manager.h"
#include "cluster/alter_partition_sender.h"
#include "replica/leader_endpoint.h"
#include "replica/replica_fetcher.h"
#include "replica/replication_quota.h"

namespace spool::broker {

class ClusterReplication {
 public:
  ClusterReplication(const BrokerSettings& settings, ClusterMember& member);
  ~ClusterReplication();
  ClusterReplication(const ClusterReplication&) = delete;
  ClusterReplication& operator=(const ClusterReplication&) = delete;

  ReplicaManager::ClusterHooks hooks();
  void start(ReplicaManager& replicas);
  void stop();

  // The replication throttle rates (bytes/s; leader.replication.throttled.rate
  // and follower.replication.throttled.rate, dynamic broker configs; <= 0 or
  // INT64_MAX: unlimited). Read live by both quotas. Any thread.
  void set_throttle_rates(int64_t leader_bytes_per_s, int64_t follower_bytes_per_s) {
    leader_rate_->store(leader_bytes_per_s);
    follower_rate_->store(follower_bytes_per_s);
  }

 private:
  void periodic_loop(ReplicaManager* replicas);

  const BrokerSettings& settings_;
  ClusterMember& member_;
  std::shared_ptr<replica::NetworkLeaderEndpoint> endpoint_;
  std::unique_ptr<replica::ReplicaFetcherManager> fetchers_;
  std::unique_ptr<cluster::AlterPartitionSender> sender_;
  std::shared_ptr<std::atomic<int64_t>> leader_rate_ =
      std::make_shared<std::atomic<int64_t>>(std::numeric_limits<int64_t>::max());
  std::shared_ptr<std::atomic<int64_t>> follower_rate_ =
      std::make_shared<std::atomic<int64_t>>(std::numeric_limits<int64_t>::max());
  std::shared_ptr<replica::ReplicationQuota> leader_quota_;
  std::shared_ptr<replica::ReplicationQuota> follower_quota_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread periodic_;
};

}  // namespace spool::broker
