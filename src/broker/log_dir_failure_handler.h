// LogDirFailureHandler: the broker's reaction to a log dir going offline
// (KIP-112; Kafka's ReplicaManager.handleLogDirFailure), run on a thread of
// its own, never on the thread whose I/O failed (a flusher, a request
// handler, a fetcher):
//   1. the replica manager takes the dir's partitions offline
//      (take_offline_partitions: fetchers stop, parked requests answer
//      KAFKA_STORAGE_ERROR, coordinators unload);
//   2. in a cluster, a persistent sequential
//      /log_dir_event_notification/log_dir_event_N ({"version":1,
//      "broker":id,"event":1}) tells the controller, which sends this broker
//      LeaderAndIsr for all its replicas, and moves leadership away from
//      those answering KAFKA_STORAGE_ERROR; a failed write is retried (every
//      second, while the handler runs), since without it leadership stays;
//   3. with every log dir offline the broker halts (exit code 1), as Kafka
//      does: nothing is left to serve, and a clean shutdown could not flush.
// What counts as a failure is storage's rule (storage/log.h): a failed
// fsync, or a write failing for another reason than a full disk.
//
// Threading: start() registers the listener with the LogManager; stop()
// (idempotent, also the destructor) unregisters it and joins the thread.
// The LogManager, ReplicaManager and store must outlive it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "broker/admin_executor.h"

namespace spool::cluster {
class MetadataStore;
}
namespace spool::storage {
class LogManager;
}

namespace spool::broker {

class ReplicaManager;

class LogDirFailureHandler {
 public:
  // store: the cluster's (ZooKeeper) store; null on a single node.
  LogDirFailureHandler(storage::LogManager& logs, ReplicaManager& replicas, cluster::MetadataStore* store,
                       int32_t broker_id);
  ~LogDirFailureHandler();
  LogDirFailureHandler(const LogDirFailureHandler&) = delete;
  LogDirFailureHandler& operator=(const LogDirFailureHandler&) = delete;

  void start();
  void stop();

 private:
  void handle(const std::string& root, const std::string& why);
  void notify_controller();

  storage::LogManager& logs_;
  ReplicaManager& replicas_;
  cluster::MetadataStore* store_;
  const int32_t broker_id_;
  std::atomic<bool> stopping_{false};
  AdminExecutor executor_{AdminExecutor::Options{"log-dir-failures", 1024}};
};

}  // namespace spool::broker
