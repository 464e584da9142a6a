// GroupService: the broker's side of consumer groups. Owns __consumer_offsets
// (OffsetsTopic) and the GroupCoordinator that lives on it, and decides when
// the coordinator takes ownership of the topic's partitions:
//  * at start, when the topic already exists, every partition is replayed on
//    one background thread (the coordinator answers
//    COORDINATOR_LOAD_IN_PROGRESS for a partition while it loads);
//  * when the first FindCoordinator creates the topic, its (empty) partitions
//    are loaded at once, before the answer, so the client's next request
//    finds its group's partition ready.
// Cluster mode (Kafka's onLeadershipChange): nothing is loaded at start or
// creation; on_leadership() loads a partition this broker comes to lead and
// unloads one it no longer leads (its groups answer NOT_COORDINATOR, and the
// clients find the new leader). The caller runs it off the LeaderAndIsr
// thread, in order (a load replays the partition).
// Threading: all methods are thread-safe. shutdown() (also run by the
// destructor) joins the loader and shuts the coordinator down; handlers must
// not be running any more (the server is stopped first).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

#include "broker/broker_settings.h"
#include "broker/offsets_topic.h"
#include "broker/replica_manager.h"
#include "coordinator/group/group_coordinator.h"
#include "protocol/error_code.h"

namespace spool::broker {

// The coordinator's options from the broker settings (group.*, offsets.*).
coordinator::GroupCoordinatorOptions group_coordinator_options(const BrokerSettings& settings);

class GroupService {
 public:
  GroupService(const BrokerSettings& settings, ReplicaManager& replicas,
               coordinator::GroupCoordinatorOptions options);
  ~GroupService();
  GroupService(const GroupService&) = delete;
  GroupService& operator=(const GroupService&) = delete;

  coordinator::GroupCoordinator& coordinator() { return *coordinator_; }
  OffsetsTopic& offsets_topic() { return offsets_; }

  // Starts loading every partition of an existing __consumer_offsets in the
  // background. No-op when the topic does not exist yet.
  void start();
  // FindCoordinator's need: the topic exists and its partitions are (being)
  // loaded. NONE, or COORDINATOR_NOT_AVAILABLE when the topic cannot be created.
  protocol::ErrorCode ensure_offsets_topic();
  // True once ensure_offsets_topic() has nothing left to do (it then returns
  // NONE at once). Handlers call that on the reactor only when this is true,
  // and on the admin executor otherwise. Any thread, never blocks.
  bool offsets_topic_ready() const { return started_.load(); }
  // True once every partition has been handed to the coordinator (loaded or
  // failed); for tests.
  bool all_partitions_loaded() const { return loaded_.load(); }
  // Cluster mode: this broker now leads (leader) or no longer leads
  // __consumer_offsets-`partition`. Blocks while a load replays.
  void on_leadership(int32_t partition, bool leader);

  void shutdown();

 private:
  void load_all(bool log_progress);

  const bool cluster_;  // partitions follow leadership (on_leadership)
  OffsetsTopic offsets_;
  std::unique_ptr<coordinator::GroupCoordinator> coordinator_;
  std::mutex mu_;             // guards the writes of started_, loader_
  std::atomic<bool> started_{false};  // partitions handed to the coordinator (or being)
  std::atomic<bool> loaded_{false};
  std::atomic<bool> stopping_{false};
  std::thread loader_;
};

}  // namespace spool::broker
