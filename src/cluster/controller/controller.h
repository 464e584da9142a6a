// Controller: Kafka's ZooKeeper-mode KafkaController as a library. Every
// broker runs one; at most one is active (holds /controller) at a time.
//
// Contract
// - All controller state (ControllerContext, the state machines) lives on the
//   event thread of its ControllerEventManager; every public entry point only
//   enqueues an event. Store watches enqueue too (they never touch state).
// - Election: on Startup and whenever /controller disappears, try the multi
//   {create /controller ephemeral; set /controller_epoch+1 at its read
//   version}. The winner fails over: read brokers (epoch = czxid), topics,
//   assignments, every /state; UpdateMetadata to all brokers BEFORE any
//   LeaderAndIsr; LeaderAndIsr (same epoch) to online replicas; offline
//   replicas -> Offline; New/Offline partitions elected; topic deletion
//   resumed. Log-dir events found at failover are deleted (that
//   LeaderAndIsr asks every broker about its replicas).
// - Log-dir failure (KIP-112, controller_log_dirs.cc): a broker that lost a
//   log dir creates /log_dir_event_notification/log_dir_event_N
//   ({"version":1,"broker":N,"event":1}); the controller deletes every such
//   node and sends LeaderAndIsr for all replicas of each named live broker.
//   A broker answers KAFKA_STORAGE_ERROR for a replica on an offline dir:
//   that replica is then offline (ControllerContext::is_replica_online) until
//   the broker answers NONE for it, fails or registers again; partitions it
//   led are re-elected, it leaves the ISRs, gets StopReplica (no delete),
//   and UpdateMetadata lists it in OfflineReplicas.
// - Fencing: every write is a multi checking the /controller_epoch zkVersion
//   won with. A refused check means another controller exists: this one
//   resigns at the end of the event (it stops writing at once).
// - Resignation (on /controller change, a fenced write or session expiry)
//   empties the context and removes every channel queue.
// - Session expiry: the owner of the store session (the broker) calls
//   session_expired() on kExpired (the controller resigns first, as Kafka),
//   and session_reestablished() once it has re-registered /brokers/ids/N on
//   the new session (the controller then re-elects).
// - A store error (not a refusal) during the election is logged and the
//   election is retried on the next /controller change or
//   session_reestablished(); the broker should call the latter after any
//   reconnect.
// - Callbacks of alter_partition() / controlled_shutdown() run on the event
//   thread (or the caller's, with NOT_CONTROLLER, after shutdown) exactly
//   once; they must not block.
// - ElectLeaders and the preferred-leader balance (Kafka's
//   processReplicaLeaderElection, checkAndTriggerAutoLeaderRebalance): see
//   controller_elections.cc.
// Files: controller.cc (lifecycle, election, failover, resignation, event
// dispatch), controller_brokers.cc (broker changes), controller_topics.cc
// (topic creation, partition additions, deletion), controller_requests.cc
// (AlterPartition, ControlledShutdown, broker responses),
// controller_elections.cc (ElectLeaders, auto leader rebalance),
// controller_reassign.cc (partition reassignment, KIP-455),
// controller_log_dirs.cc (log-dir events and LeaderAndIsr answers, KIP-112).
// Threading: public methods are thread-safe; context() only on the event
// thread (or in manual mode between run_pending() calls).
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/controller/broker_channel.h"
#include "cluster/controller/controller_config.h"
#include "cluster/controller/controller_context.h"
#include "cluster/controller/controller_event_manager.h"
#include "cluster/controller/controller_zk.h"
#include "cluster/controller/partition_state_machine.h"
#include "cluster/controller/replica_state_machine.h"
#include "cluster/controller/request_batch.h"
#include "cluster/metadata_store.h"

namespace spool::cluster::controller {

class Controller {
 public:
  // The store must hold this broker's session (its /brokers/ids/N is the
  // broker's business). channel outlives the controller.
  Controller(ControllerConfig config, MetadataStore& store, BrokerChannel& channel);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Starts the event thread and enqueues Startup.
  void start();
  // Manual mode (tests): enqueues Startup; events run on run_pending().
  void start_manual();
  // Bounded: see ControllerEventManager::shutdown. Resigns if active.
  void shutdown();
  ControllerEventManager& events() { return events_; }

  bool is_active() const { return active_id_.load() == config_.broker_id; }
  // The broker id in /controller as last seen (-1 unknown).
  int32_t active_controller_id() const { return active_id_.load(); }
  // This controller's epoch while active (0 otherwise).
  int32_t epoch() const { return epoch_.load(); }

  void session_expired();
  void session_reestablished();
  void alter_partition(AlterPartitionRequest request, std::function<void(const AlterPartitionResult&)> callback);
  void controlled_shutdown(int32_t broker, int64_t broker_epoch,
                           std::function<void(const ControlledShutdownResult&)> callback);
  // unclean.leader.election.enable was turned on (for a topic, or for the
  // broker default when topic is empty): re-runs offline elections.
  void unclean_leader_election_enabled(std::optional<std::string> topic);
  // ElectLeaders (KIP-460; controller_elections.cc): one result per
  // partition, in the order given, on the event thread (NOT_CONTROLLER for
  // all when this controller is not active or the event is dropped).
  void elect_leaders(ElectionType type, std::vector<TopicPartition> partitions,
                     std::function<void(const std::vector<ElectionResult>&)> callback);
  // Runs the preferred-leader balance check now (tests; the timer of
  // leader.imbalance.check.interval.seconds does the same).
  void trigger_leader_rebalance();
  // KIP-455 (controller_reassign.cc): starts, changes or cancels (replicas
  // nullopt) reassignments; answers once each has been started or refused.
  void alter_partition_reassignments(
      std::vector<ReassignmentItem> items, bool allow_replication_factor_change,
      std::function<void(protocol::ErrorCode, const std::vector<ReassignmentResult>&)> callback);
  void list_partition_reassignments(
      std::optional<std::vector<TopicPartition>> partitions,
      std::function<void(protocol::ErrorCode, const std::vector<OngoingReassignment>&)> callback);

  const ControllerContext& context() const { return ctx_; }

 private:
  struct WatchSink;  // outlives the controller inside store watchers

  void process(ControllerEvent& event);
  Watcher controller_znode_watch();
  Watcher watch_event(ControllerEvent e);

  // controller.cc
  void process_startup();
  void elect();
  void on_failover();
  void initialize_context();
  void on_resignation();
  void maybe_resign();
  void process_expire();
  void process_reelect();
  void send_update_metadata(const std::vector<int32_t>& brokers, const std::vector<TopicPartition>& partitions);
  std::vector<int32_t> all_broker_ids() const;
  int64_t now_ms() const;

  // controller_brokers.cc
  void process_broker_change();
  void process_broker_modification(int32_t broker);
  void on_broker_startup(const std::vector<int32_t>& brokers);
  void on_broker_failure(const std::vector<int32_t>& brokers);
  void on_replicas_offline(const std::vector<PartitionReplica>& replicas);

  // controller_topics.cc
  void process_topic_change();
  void process_partition_modifications(const std::string& topic);
  void on_new_partitions(const std::vector<TopicPartition>& partitions);
  bool load_topic(const std::string& topic, std::vector<TopicPartition>* added);
  void process_topic_deletion();
  void try_topic_deletion();
  void start_topic_deletion(const std::string& topic);
  void complete_topic_deletion(const std::string& topic);
  void fail_replica_deletion(const std::vector<PartitionReplica>& replicas);

  // controller_requests.cc
  void process_alter_partition(AlterPartitionEvent& ev);
  AlterPartitionResult do_alter_partition(const AlterPartitionRequest& req);
  void process_controlled_shutdown(ControlledShutdownEvent& ev);
  ControlledShutdownResult do_controlled_shutdown(int32_t broker, int64_t broker_epoch);
  void process_broker_response(const BrokerResponseEvent& ev);
  void process_unclean_enable(const UncleanLeaderElectionEnableEvent& ev);

  // controller_reassign.cc
  void process_alter_reassignments(AlterReassignmentsEvent& ev);
  void process_list_reassignments(ListReassignmentsEvent& ev);
  void process_zk_reassignment();
  void resume_reassignments();
  std::optional<std::string> invalid_target(const TopicPartition& tp, const std::vector<int32_t>& replicas) const;
  // Starts or changes the reassignment of tp to `target` (Kafka's
  // onPartitionReassignment); false when it could not (fenced, ZK error).
  bool reassign(const TopicPartition& tp, const std::vector<int32_t>& target);
  // Completes tp's reassignment when its target replicas are all in sync.
  void maybe_complete_reassignment(const TopicPartition& tp);
  void complete_reassignment(const TopicPartition& tp);
  bool write_replicas(const TopicPartition& tp, const std::vector<int32_t>& replicas, const Reassignment& r);
  bool bump_leader_epoch(const TopicPartition& tp, bool new_replicas_too);
  void stop_removed_replicas(const TopicPartition& tp, const std::vector<int32_t>& replicas);
  void forget_zk_reassignment(const TopicPartition& tp);

  // controller_log_dirs.cc
  void process_log_dir_event_notification();
  void clear_log_dir_events();
  void on_broker_log_dir_failure(const std::vector<int32_t>& brokers);
  void process_leader_and_isr_response(int32_t broker, const ControllerResponse& response);

  // controller_elections.cc
  void process_elect_leaders(ElectLeadersEvent& ev);
  std::vector<ElectionResult> do_elect_leaders(ElectionType type, const std::vector<TopicPartition>& partitions);
  void process_auto_leader_rebalance();
  void rebalance_timer_loop();

  const ControllerConfig config_;
  MetadataStore& store_;
  BrokerChannel& channel_;
  ControllerContext ctx_;
  ControllerZk zk_;
  RequestBatch batch_;
  PartitionStateMachine psm_;
  ReplicaStateMachine rsm_;
  std::shared_ptr<WatchSink> sink_;
  std::atomic<int32_t> active_id_{-1};
  std::atomic<int32_t> epoch_{0};
  std::function<uint64_t()> random_;
  // The leader.imbalance.check.interval timer (start(); stopped first in shutdown()).
  std::mutex timer_mu_;
  std::condition_variable timer_cv_;
  bool timer_stop_ = false;
  std::thread rebalance_timer_;
  ControllerEventManager events_;  // last: its thread stops before the rest goes
};

}  // namespace spool::cluster::controller
