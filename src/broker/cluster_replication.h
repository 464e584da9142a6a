// ClusterReplication: the replication half of a cluster member, wired to
// the ReplicaManager (run.cc owns one when zookeeper.connect is set):
// - the follower side: a replica::ReplicaFetcherManager over the member's
//   NetworkClient (leader endpoints from the LeaderAndIsr live leaders, else
//   the metadata cache, on the inter-broker listener);
// - ISR changes to the controller through a cluster::AlterPartitionSender
//   (one in flight per partition), answers applied to the partition;
// - a housekeeping thread: ISR shrink every replica.lag.time.max.ms / 2 and
//   replication-offset-checkpoint every 5 s (Kafka's
//   replica.high.watermark.checkpoint.interval.ms default) and at stop.
//
// Order (run.cc):
//   ClusterReplication repl(settings, replicas);  // before replicas.load()
//   ... member->start(...) ...
//   repl.start(*member);                          // right after it
//   ... serve ...
//   repl.stop();                                  // before replicas.shutdown()
// LeaderAndIsr handled between member->start() and repl.start() is kept
// and its follower partitions start fetching in start().
// Threading: the hooks run on the admin executor (LeaderAndIsr) and the
// fetcher threads; start/stop on the main thread.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "broker/replica_manager.h"
#include "cluster/alter_partition_sender.h"
#include "replica/replica_fetcher.h"

namespace spool::broker {

class ClusterMember;

class ClusterReplication {
 public:
  // Enables cluster mode on `replicas` (call before ReplicaManager::load()).
  ClusterReplication(const BrokerSettings& settings, ReplicaManager& replicas);
  ~ClusterReplication();
  ClusterReplication(const ClusterReplication&) = delete;
  ClusterReplication& operator=(const ClusterReplication&) = delete;

  void start(ClusterMember& member);
  void stop();

 private:
  struct Follow {
    std::weak_ptr<Partition> partition;
    int32_t leader = -1;
    std::vector<cluster::LiveLeaderEndpoint> leaders;
  };
  void follow(const std::shared_ptr<Partition>& p, int32_t leader, const std::vector<cluster::LiveLeaderEndpoint>& leaders);
  void unfollow(const TopicPartition& tp);
  void submit(const std::shared_ptr<Partition>& p, const replica::IsrChange& change);
  void housekeeping();

  const BrokerSettings& settings_;
  ReplicaManager& replicas_;
  ClusterMember* member_ = nullptr;

  std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;
  bool stopping_ = false;
  std::vector<Follow> pending_follows_;  // before start()
  std::unique_ptr<cluster::AlterPartitionSender> sender_;
  std::unique_ptr<replica::ReplicaFetcherManager> fetchers_;
  std::thread housekeeping_;
};

}  // namespace spool::broker
