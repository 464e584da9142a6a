// ReplicaManager: the partitions this broker hosts, their write and read
// paths, and topic lifecycle (Kafka's ReplicaManager).
//
// Write path: append_records() (Produce) and append_txn_marker()
// (WriteTxnMarkers) append to the partitions and answer at once (acks=0/1) or
// through a DelayedProduce parked in the produce purgatory (acks=all);
// delete_records() (DeleteRecords) moves log starts. Read path:
// fetch_messages() reads at once or parks a DelayedFetch in the fetch
// purgatory. The manager owns both purgatories (Purgatory<TopicPartition>);
// every Partition wakes them when its high watermark may have moved. The
// request handlers only decode, refuse what the request itself gets wrong,
// and translate to and from these calls (replica_manager_append.cc,
// replica_manager_fetch.cc). Not yet here: the coordinators' internal-topic
// appends (broker/internal_topic_log.cc) still call Partition::append.
//
// Lifecycle:
// Owns the map topic -> partitions and keeps it in step with the topic
// registry (persisted metadata) and the log manager (files). Creation writes
// the registry first, then the logs; deletion removes the registry entry
// first, then the files, so a crash in between never resurrects a deleted
// topic or loses a created one (missing logs are recreated at start).
// Each partition dir holds Kafka's partition.metadata naming the topic id its
// data belongs to (KIP-516). Files left behind by a deleted topic (a crash
// between registry and file removal) are removed when a topic of that name is
// created or grown again, so a new topic never serves an old one's records; at
// start a partition dir whose id is not the registry's stops the load with
// KAFKA_STORAGE_ERROR naming both ids (the files are kept for the operator).
// Thread-safe: lookups take a shared lock; create/delete an exclusive one;
// the write/read paths take only the lookup's lock (the Log serialises
// appends). Callbacks must not block; they run on the calling, flusher or
// purgatory reaper thread as each method says.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include "broker/broker_settings.h"
#include "broker/fetch_session.h"
#include "broker/partition.h"
#include "broker/topic_registry.h"
#include "cluster/interbroker_wire.h"
#include "protocol/error_code.h"
#include "storage/log_manager.h"
#include "replica/replication_quota.h"
#include "timer/purgatory.h"
#include "util/serial_executor.h"
#include "util/topic_partition.h"

namespace spool::broker {

// One partition's records of a Produce request, as the handler hands them
// over. `error` != NONE is the handler's own verdict (unsupported version,
// unknown topic id, internal topic...): answered as is, nothing appended.
struct ProduceEntry {
  TopicPartition tp;
  // Produce v13: the id the request named; a partition whose data belongs to
  // another id (re-created topic) is INCONSISTENT_TOPIC_ID. Unset before v13.
  std::optional<TopicId> topic_id;
  // The batches, a view into the request frame; offsets are assigned in
  // place. Only read during append_records() (a parked acks=all produce
  // keeps offsets, never bytes). Empty: CORRUPT_MESSAGE.
  std::span<uint8_t> batches;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  std::string error_message;
};

// One entry's answer, in the order of the entries.
struct ProduceResult {
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  std::string error_message;  // empty: none
  int64_t base_offset = -1;
  int64_t log_append_time_ms = -1;
  int64_t log_start_offset = -1;  // -1 when the partition was not found
};
using ProduceCallback = std::function<void(std::vector<ProduceResult>)>;

// What a Fetch asks of the read path (Kafka's FetchParams).
struct FetchParams {
  int32_t replica_id = -1;     // < 0: a consumer; >= 0: a follower (cluster mode)
  int64_t replica_epoch = -1;  // Fetch v15+ ReplicaState.ReplicaEpoch (the follower's broker epoch)
  int8_t isolation_level = 0;  // 1: read_committed (bound = last stable offset)
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 0;
  // Fetch v13+: partitions are named by topic id; an empty name is resolved
  // again through the registry, and a partition whose data belongs to another
  // id is INCONSISTENT_TOPIC_ID.
  bool by_topic_id = false;
  std::vector<FetchPartitionWanted> partitions;
  // The authorizer's verdict per topic name (Fetch: READ, or CLUSTER_ACTION
  // for a follower); a refused topic's partitions answer
  // TOPIC_AUTHORIZATION_FAILED, after the topic-id check. Empty = all allowed.
  std::function<bool(const std::string& topic)> may_read;
};
// One result per FetchParams::partitions entry, same order.
using FetchCallback = std::function<void(std::vector<FetchPartitionResult>)>;

// One transaction marker for one partition (a WriteTxnMarkers entry).
struct TxnMarkerEntry {
  TopicPartition tp;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  bool commit = false;
  int32_t coordinator_epoch = 0;
  int8_t transaction_version = 0;  // >= 2 (KIP-1228): the epoch must be above the producer's
};

// One DeleteRecords partition and its answer.
struct DeleteRecordsEntry {
  TopicPartition tp;
  int64_t offset = -1;  // -1: the high watermark
};
struct DeleteRecordsResult {
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  int64_t low_watermark = -1;  // the log start offset afterwards
};

// One partition's answer to a LeaderAndIsr or StopReplica (the handler
// builds the response from these).
struct PartitionOutcome {
  TopicPartition partition;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  bool operator==(const PartitionOutcome&) const = default;
};

class ReplicaManager {
 public:
  // The produce and fetch purgatories' options (names are set here; tests
  // pass a manual clock and no reaper).
  struct PurgatoryConfig {
    timer::PurgatoryOptions fetch;
    timer::PurgatoryOptions produce;
  };

  ReplicaManager(const BrokerSettings& settings, TopicRegistry& registry, storage::LogManager& logs,
                 PurgatoryConfig purgatories = {});
  ~ReplicaManager();

  // Expires every parked produce and fetch now (their answers go to
  // connections that are closing) and stops the purgatories' reapers.
  // Idempotent; later calls answer at once instead of parking.
  void shutdown();

  // Opens (or recreates) the logs of every registered topic. Logs on disk
  // that belong to no registered topic are left untouched and reported.
  Status load();

  std::shared_ptr<Partition> partition(const std::string& topic, int32_t index) const;
  std::shared_ptr<Partition> partition(const TopicPartition& tp) const { return partition(tp.topic, tp.partition); }
  // Every partition hosted here (a snapshot; entries may be null while a
  // topic's partitions open). For the admin API and metrics.
  std::vector<std::shared_ptr<Partition>> all_partitions() const;

  // Produce (Kafka's appendRecords): appends each entry without a handler
  // error to its partition (lookup, topic id, min.insync.replicas for
  // acks=-1, record validation against the topic's max.message.bytes, then
  // the append; idempotent checks happen inside it). `acks` is 0, 1 or -1
  // (the handler refuses others). acks=0/1: `done` runs before this returns.
  // acks=-1: `done` runs once every appended partition's high watermark has
  // passed its last offset (KAFKA_STORAGE_ERROR if its flush failed), or
  // after timeout_ms with REQUEST_TIMED_OUT for those still short - on the
  // flusher thread, the reaper thread or this one.
  void append_records(int16_t acks, int64_t timeout_ms, const std::vector<ProduceEntry>& entries,
                      ProduceCallback done);

  // Fetch (Kafka's fetchMessages): reads every partition of `params` up to
  // the high watermark (read_committed: the last stable offset), bounded by
  // each partition's and the request's max bytes. Answers at once when
  // min_bytes are readable, any partition has an error or a diverging epoch,
  // there is nothing to read, or max_wait_ms <= 0; else parks a DelayedFetch
  // under every partition's key that re-checks whenever one's high watermark
  // moves, answering with what exists after max_wait_ms. `done` runs exactly
  // once, on this thread or the one that completed the wait.
  void fetch_messages(FetchParams params, FetchCallback done);

  // WriteTxnMarkers for one partition: appends the COMMIT/ABORT control batch
  // and calls done(NONE) once it is durable (high watermark past it), or
  // done(error): UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER,
  // INVALID_PRODUCER_EPOCH, KAFKA_STORAGE_ERROR... (at once on this thread
  // for refusals, on the flusher thread after an append). On one node there
  // is no timeout. In a cluster the append is acks=all (Kafka's): refused
  // with NOT_ENOUGH_REPLICAS while the ISR is below min.insync.replicas, and
  // answered once the ISR's high watermark passes the marker, or
  // REQUEST_TIMED_OUT after kTxnMarkerReplicationTimeoutMs (the coordinator
  // retries; a marker appended twice is harmless, as in Kafka).
  //
  // In a cluster `done` runs on the completions thread (run_off_lock), never
  // under the DelayedProduce's lock: the marker's callers (the transaction
  // coordinator, the group coordinator's transactional offsets) take their
  // own locks there, locks they also hold while they append.
  void append_txn_marker(const TxnMarkerEntry& marker, std::function<void(protocol::ErrorCode)> done);

  // Runs `fn` on the manager's completions thread, in posting order. For
  // the completion of a coordinator's write: a DelayedProduce completes
  // under its operation lock, on whichever thread moved the high watermark,
  // and that thread may itself be appending under a coordinator's lock (an
  // append wakes the purgatory and waits for the same operation lock); a
  // completion that takes the coordinator's lock inline deadlocks against it
  // (Kafka's KAFKA-8334; its ActionQueue defers the other side instead).
  void run_off_lock(std::function<void()> fn) { completions_.post(std::move(fn)); }
  static constexpr int64_t kTxnMarkerReplicationTimeoutMs = 20000;

  // DeleteRecords (Kafka's deleteRecords; on one node nothing waits for
  // followers): per entry, Partition::delete_records_on_leader
  // (UNKNOWN_TOPIC_OR_PARTITION, OFFSET_OUT_OF_RANGE, KAFKA_STORAGE_ERROR),
  // then, if any log start moved, the log-start checkpoint is rewritten
  // before returning (a failure answers KAFKA_STORAGE_ERROR for the moved
  // ones), so an acknowledged deletion survives a crash. That is one small
  // fsync on the calling thread; DeleteRecords is a rare admin call.
  std::vector<DeleteRecordsResult> delete_records(const std::vector<DeleteRecordsEntry>& entries);
  // Cluster mode (replica_manager_cluster.cc). The handler applies the
  // controller/broker epoch gate first and runs these on the admin executor
  // (they may block on disk: creating logs, truncating). One outcome per
  // partition of the command, in its order.
  // LeaderAndIsr (Kafka's becomeLeaderOrFollower): a leader epoch not newer
  // than ours -> STALE_CONTROLLER_EPOCH; a partition epoch below ours is
  // skipped (NONE); a partition whose replicas exclude `local_broker_id` ->
  // UNKNOWN_TOPIC_OR_PARTITION; else the log is got or created and the
  // partition becomes leader or follower.
  std::vector<PartitionOutcome> become_leader_or_follower(const cluster::LeaderAndIsrCommand& command,
                                                          int32_t local_broker_id);
  // Cluster wiring (replica_manager_cluster.cc). enable_cluster_mode() runs
  // once, before load(): from then on partitions come from LeaderAndIsr.
  struct ClusterHooks {
    int32_t local_broker_id = -1;
    int64_t replica_lag_time_max_ms = 30000;  // replica.lag.time.max.ms
    // Whether a broker is live (metadata cache); empty: every broker.
    replica::ReplicaSet::Eligible eligible;
    // Where proposed ISR changes go (the AlterPartitionSender adapter). It
    // must hand the controller's answer to Partition::on_alter_partition_response.
    Partition::IsrChangeSink isr_sink;
    // Follower transitions (the fetcher manager): start fetching `partition`
    // from `leader` (endpoints of live leaders from the LeaderAndIsr), or stop.
    std::function<void(const std::shared_ptr<Partition>&, int32_t leader,
                       const std::vector<cluster::LiveLeaderEndpoint>& leaders)> start_following;
    std::function<void(const TopicPartition&)> stop_following;
    std::function<int64_t()> now_ms;  // empty: a steady clock
    // The leader side's replication throttle (KIP-73): follower fetches of
    // leader-throttled partitions from replicas not in the ISR get no
    // records while it is exceeded, and the bytes they do get are recorded.
    // Null: no throttling.
    std::shared_ptr<replica::ReplicationQuota> leader_quota;
    // A topic's config overrides as the cluster holds them (/config/topics/T;
    // nullopt when unreadable), read when LeaderAndIsr brings this broker a
    // topic it does not host yet (Kafka reads them when it creates the log):
    // a config change announced before then found no topic to apply to.
    // Called on the admin executor, outside the manager's lock.
    std::function<std::optional<std::map<std::string, std::string>>(const std::string& topic)> topic_configs;
  };
  void enable_cluster_mode(ClusterHooks hooks);
  bool cluster_mode() const { return cluster_.has_value(); }
  // ClusterHooks::leader_quota (null on one node or without throttling);
  // shared, thread-safe state, not the manager's.
  replica::ReplicationQuota* leader_quota() const { return cluster_ ? cluster_->leader_quota.get() : nullptr; }
  // Kafka's onLeadershipChange: told after every LeaderAndIsr transition
  // (leader = true with the new leader epoch; false: follower or stopped),
  // on the thread that handles it; it must not block (the coordinators
  // queue their loads). Set once, before the broker registers.
  using LeadershipListener = std::function<void(const TopicPartition&, bool leader, int32_t leader_epoch)>;
  void set_leadership_listener(LeadershipListener listener) { leadership_listener_ = std::move(listener); }
  // Every led partition's periodic ISR shrink (run every replica.lag.time.max.ms / 2).
  void maybe_shrink_isr();
  // replication-offset-checkpoint in every log dir (Kafka's text format, the
  // high watermark of every hosted partition); read back by load().
  Status checkpoint_high_watermarks();
  // A log dir went offline (storage::LogManager::fail_dir): every hosted
  // partition whose log is offline stops fetching, wakes its parked
  // requests (they answer KAFKA_STORAGE_ERROR) and is reported to the
  // leadership listener as no longer led (the coordinators unload it).
  // Returns the partitions newly found offline. Any thread but a reactor
  // (it takes the manager's lock).
  std::vector<TopicPartition> take_offline_partitions();
  // StopReplica: stops fetching, stops leading, deletes the log when asked.
  // Leader epoch -1/-2 bypass the check; lower than ours -> FENCED_LEADER_EPOCH.
  std::vector<PartitionOutcome> stop_replicas(const cluster::StopReplicaCommand& command);

  // The purgatories (tests and metrics read their sizes).
  using PartitionPurgatory = timer::Purgatory<TopicPartition>;
  PartitionPurgatory& fetch_purgatory() { return *fetch_purgatory_; }
  PartitionPurgatory& produce_purgatory() { return *produce_purgatory_; }
  std::optional<TopicInfo> topic(const std::string& name) const;
  std::vector<TopicInfo> topics() const;

  // Validates name, partition count and configs; Status carries the Kafka
  // error code (TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION, INVALID_PARTITIONS,
  // INVALID_CONFIG, ...). validate_only checks without creating.
  Result<TopicInfo> create_topic(const std::string& name, int32_t partitions,
                                 const std::map<std::string, std::string>& configs, bool validate_only);
  Status delete_topic(const std::string& name);
  // CreatePartitions: grows `name` to `partitions` (registry first, then the
  // new logs; existing partitions keep their Partition objects). Errors:
  // UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS (not larger than now, or
  // above the limit). validate_only checks without changing anything.
  Result<TopicInfo> create_partitions(const std::string& name, int32_t partitions, bool validate_only);
  // AlterConfigs: `overrides` becomes the topic's whole override set. All
  // keys and cross-key rules are validated first (INVALID_CONFIG with the
  // reason); then the registry persists the set atomically, and only then is
  // it applied live to every open partition (log config, durable.writes,
  // max.message.bytes), so a restart always sees what was acknowledged.
  // Errors: UNKNOWN_TOPIC_OR_PARTITION, INVALID_CONFIG. validate_only checks
  // without changing anything.
  Result<TopicInfo> alter_topic_config(const std::string& name,
                                       const std::map<std::string, std::string>& overrides, bool validate_only);
  // The same, with the new set computed from the current one by `edit` under
  // the manager's lock (IncrementalAlterConfigs: read-modify-write without
  // losing a concurrent change). `edit` must not call back into this object;
  // a failed Status from it is returned unchanged (its kafka_code kept).
  using ConfigEdit = std::function<Status(std::map<std::string, std::string>&)>;
  Result<TopicInfo> edit_topic_config(const std::string& name, const ConfigEdit& edit, bool validate_only);
  // The topic defaults (BrokerSettings::topic_defaults) changed (dynamic
  // broker configs): every open partition's config is rebuilt from its
  // topic's overrides on the new defaults, as a topic config change would
  // (Kafka's DynamicLogConfig.updateLogsConfig). Nothing is persisted.
  void reapply_topic_defaults();

 private:
  // Opens partitions [0, info.partitions) that are not open yet; open ones are kept.
  // kNew: partitions created now (a topic, or added ones): leftover files of
  // an older topic of that name are removed first. kLoad: partitions the
  // registry already had: their files must belong to this topic id.
  enum class Opening { kLoad, kNew };
  Status open_partitions_locked(const TopicInfo& info, Opening opening);
  // The topic's max.message.bytes from its overrides, else the broker default.
  // A topic's effective int config (its override, else the broker's), or fallback.
  int32_t int_config_for(const std::map<std::string, std::string>& overrides, const char* key,
                         int32_t fallback) const;
  int32_t max_message_bytes_for(const std::map<std::string, std::string>& overrides) const;
  int32_t min_insync_replicas_for(const std::map<std::string, std::string>& overrides) const;
  // The partition's replication throttles from its topic's overrides (this broker's entries).
  void apply_throttles(Partition& part, const std::map<std::string, std::string>& overrides) const;
  // Applies a topic's effective config (overrides on the current defaults)
  // to its open partitions; mu_ held exclusively.
  void apply_topic_config_locked(const std::vector<std::shared_ptr<Partition>>& parts,
                                 const std::map<std::string, std::string>& overrides);

  // One partition's append (the body of append_records for an entry).
  ProduceResult append_one(int16_t acks, const ProduceEntry& entry, std::shared_ptr<Partition>& partition,
                           int64_t& last_offset);
  // done(NONE) once the partition's high watermark reaches required_offset
  // (a DelayedProduce in the produce purgatory), done(error) when it cannot
  // (not leader, failed flush), REQUEST_TIMED_OUT after timeout_ms.
  void await_high_watermark(std::shared_ptr<Partition> partition, int64_t required_offset, int64_t timeout_ms,
                            std::function<void(protocol::ErrorCode)> done);
  // The listener every Partition is given: wakes the purgatories. Holds them
  // weakly, so a partition outliving the manager wakes nothing.
  Partition::HwListener hw_listener() const;

  // LeaderAndIsr for one partition (the body of become_leader_or_follower).
  protocol::ErrorCode become_one(const cluster::LeaderAndIsrPartitionCommand& p, int32_t local_broker_id,
                                 const std::vector<cluster::LiveLeaderEndpoint>& leaders);
  // Gets or creates the partition's Partition (registry entry with the
  // topic id, log, partition.metadata), under the exclusive lock.
  // `configs`: the overrides a topic new to this broker is registered with.
  Result<std::shared_ptr<Partition>> get_or_create_locked(const TopicPartition& tp, const TopicId& id,
                                                          const std::map<std::string, std::string>& configs = {});
  std::map<TopicPartition, int64_t> checkpointed_hw_;  // read at load()
  std::set<TopicPartition> offline_partitions_;  // reported by take_offline_partitions (guarded by mu_)
  // Cluster mode's load(): reads the high watermark checkpoints; partitions
  // are opened by LeaderAndIsr.
  Status load_cluster();

  std::optional<ClusterHooks> cluster_;
  const BrokerSettings& settings_;
  TopicRegistry& registry_;
  LeadershipListener leadership_listener_;
  storage::LogManager& logs_;
  // Shared so the partitions' listeners can hold them weakly (see hw_listener).
  std::shared_ptr<PartitionPurgatory> fetch_purgatory_;    // DelayedFetch, by partition
  std::shared_ptr<PartitionPurgatory> produce_purgatory_;  // DelayedProduce, by partition
  mutable std::shared_mutex mu_;
  std::map<std::string, std::vector<std::shared_ptr<Partition>>> partitions_;
  SerialExecutor completions_{"completions"};  // run_off_lock
};

}  // namespace spool::broker
