// The clusters of `spool bench --workloads cluster`: N nodes on loopback
// that the cluster workloads start, kill -9 one node of, restart and stop.
//   SpoolCluster: one ZooKeeper (tests/support/zk-server, Debian's 3.8) and
//     N `spool broker` children (BrokerProcess) with broker.id 0..N-1 and the
//     cluster keys as --override, as scripts/run-cluster starts them.
//   KafkaPeerCluster: Apache Kafka 4.4, N combined broker+controller KRaft
//     nodes through `scripts/kafka-peer cluster-start BASEDIR N PORTS`, a node
//     killed with SIGKILL to the JVM then `kafka-peer kill9 BASEDIR/node-I`,
//     restarted with `kafka-peer node-start BASEDIR I`.
// Node I has broker id / node id I in both.
// Finding zk-server: $SPOOL_ZK_SERVER (as tests/system/cluster.py), else
// <source tree>/tests/support/zk-server next to the spool binary's build
// dir, else ./tests/support/zk-server.
// Ownership: a cluster owns its processes; the destructor SIGKILLs whatever
// still runs (brokers and ZooKeeper). It does not delete its dir. Not
// thread-safe: drive it from one thread. Failure: Status with the reason and
// the tail of the logs; nothing throws.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/broker_process.h"
#include "bench/kafka_peer.h"
#include "util/status.h"

namespace spool::bench {

class ManagedCluster {
 public:
  explicit ManagedCluster(int n) : n_(n) {}
  virtual ~ManagedCluster() = default;
  ManagedCluster(const ManagedCluster&) = delete;
  ManagedCluster& operator=(const ManagedCluster&) = delete;
  // Starts every node; returns once every node's Metadata lists all N.
  virtual Status start(double timeout_s) = 0;
  // SIGKILL to node i's serving process, sent as the call begins (the
  // caller's clock starts right before the call); reaps it before returning.
  virtual void kill9(int i) = 0;
  // Restarts a killed node on its dir and port; returns once every node's
  // Metadata lists all N again.
  virtual Status restart(int i, double timeout_s) = 0;
  // SIGTERM to every node (and ZooKeeper); error when one did not stop cleanly.
  virtual Status stop(double timeout_s) = 0;
  // SIGTERM to node i alone (a controlled shutdown: its leaders move first),
  // sent as the call begins; returns once it exited (error: not cleanly, or
  // killed after `timeout_s`). restart() brings it back.
  virtual Status terminate(int i, double timeout_s) = 0;
  int size() const { return n_; }
  virtual std::string node_bootstrap(int i) const = 0;
  // Every node, comma-separated.
  std::string bootstrap() const;
  virtual std::string log_tail(size_t max_chars = 3000) const = 0;

 protected:
  const int n_;
};

// Until each of `nodes` (host:port) answers Metadata listing `n` brokers.
Status wait_cluster_ready(const std::vector<std::string>& nodes, int n, double timeout_s);

// tests/support/zk-server (see the header comment).
Result<std::string> locate_zk_server(const std::string& exe);

class SpoolCluster : public ManagedCluster {
 public:
  // `exe`: the spool binary; `dir`: the cluster's own dir (zk/, broker-I/);
  // `overrides`: key=value for every broker on top of broker.id,
  // zookeeper.connect, listeners and log.dirs.
  SpoolCluster(std::string exe, std::string zk_server, std::string dir, int n, std::vector<std::string> overrides);
  ~SpoolCluster() override;

  Status start(double timeout_s) override;
  void kill9(int i) override;
  Status restart(int i, double timeout_s) override;
  Status stop(double timeout_s) override;
  Status terminate(int i, double timeout_s) override;
  std::string node_bootstrap(int i) const override;
  std::string log_tail(size_t max_chars = 3000) const override;

 private:
  std::vector<std::string> nodes() const;

  std::string exe_, zk_server_, dir_;
  std::vector<std::string> overrides_;
  bool zk_started_ = false;
  std::vector<std::unique_ptr<BrokerProcess>> brokers_;
};

class KafkaPeerCluster : public ManagedCluster {
 public:
  // `overrides`: key=value for every node (kept by the script for restarts).
  KafkaPeerCluster(std::string script, std::string dir, int n, std::vector<std::string> overrides);
  ~KafkaPeerCluster() override;

  Status start(double timeout_s) override;
  void kill9(int i) override;
  Status restart(int i, double timeout_s) override;
  Status stop(double timeout_s) override;
  Status terminate(int i, double timeout_s) override;
  std::string node_bootstrap(int i) const override;
  std::string log_tail(size_t max_chars = 3000) const override;

 private:
  std::string script_, dir_;
  std::vector<std::string> overrides_;
  std::vector<int> ports_;
  bool started_ = false;
  // Per node: the single-node KafkaPeer on BASEDIR/node-I, for its pid,
  // kill9 and log tail (the cluster commands start the nodes).
  std::vector<std::unique_ptr<KafkaPeer>> nodes_;
};

}  // namespace spool::bench
