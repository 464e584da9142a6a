// GroupCoordinator: Kafka's classic consumer-group protocol (JoinGroup,
// SyncGroup, Heartbeat, LeaveGroup) plus committed offsets, with all state
// persisted in __consumer_offsets through an OffsetsLog.
//
// Contract with the broker's handlers: each request API maps to one method
// taking plain parameters (already decoded; version differences expressed as
// flags) and answering exactly once through its callback, possibly later and
// from another thread (a join waits for the other members; a commit waits for
// its records to be durable). Error codes are Kafka's (protocol::ErrorCode).
// Validation of topic existence is the handler's job; the coordinator trusts
// the topic/partition names it is given.
//
// Group -> partition: abs(Java String.hashCode(group_id)) % partition_count.
// While a partition loads (load_partition), requests for its groups answer
// COORDINATOR_LOAD_IN_PROGRESS; before a partition was loaded or after
// unload_partition, NOT_COORDINATOR.
//
// State machine: Empty -> PreparingRebalance -> CompletingRebalance -> Stable,
// Dead once deleted/unloaded; timers (session expiry, rebalance timeout,
// initial rebalance delay) are delayed operations in purgatories on the
// injectable clock in Options.
// Threading: all methods are thread-safe (one lock per group). Callbacks may
// run on the caller's thread, a timer thread or the log's flusher thread; they
// must not block and must not call back into the coordinator.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/group/offsets_log.h"
#include "protocol/error_code.h"
#include "util/clock.h"
#include "util/bytes.h"
#include "util/topic_partition.h"

namespace spool::coordinator {

using protocol::ErrorCode;

struct GroupCoordinatorOptions {
  int32_t group_min_session_timeout_ms = 6000;     // group.min.session.timeout.ms
  int32_t group_max_session_timeout_ms = 1800000;  // group.max.session.timeout.ms
  int32_t group_initial_rebalance_delay_ms = 3000; // group.initial.rebalance.delay.ms
  int32_t group_max_size = INT32_MAX;              // group.max.size
  int32_t offset_metadata_max_bytes = 4096;        // offset.metadata.max.bytes
  int64_t offsets_retention_ms = 7LL * 24 * 3600 * 1000;  // offsets.retention.minutes
  int64_t offsets_retention_check_interval_ms = 600000;   // offsets.retention.check.interval.ms
  // Time source: its monotonic scale drives the join/heartbeat timers, its
  // wall scale the commit and state timestamps. null: system_clock().
  std::shared_ptr<Clock> clock;
  bool start_reaper = true;                // false in tests: call advance_clock()
};

// ---- JoinGroup ----
struct JoinGroupParams {
  std::string group_id;
  std::string member_id;  // "" = new member
  std::optional<std::string> group_instance_id;  // static membership (v5+)
  std::string client_id;
  std::string client_host;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = -1;  // -1 (v0): = session timeout
  std::string protocol_type;
  std::vector<std::pair<std::string, Bytes>> protocols;  // name, metadata; in preference order
  bool require_known_member_id = false;  // v4+: MEMBER_ID_REQUIRED round trip
  // v9+ (KIP-814): a static leader that rejoins a Stable group without
  // changing the selected protocol gets the members back with
  // skip_assignment set, instead of an answer naming the old leader id.
  bool supports_skip_assignment = false;
};
struct JoinGroupResult {
  ErrorCode error = ErrorCode::kNone;
  int32_t generation_id = -1;
  std::string protocol_name;  // selected protocol ("" on error)
  std::optional<std::string> protocol_type;  // the group's (v7+); null on error
  std::string leader_id;
  bool skip_assignment = false;  // v9+: see JoinGroupParams::supports_skip_assignment
  std::string member_id;
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    Bytes metadata;  // the member's subscription for the selected protocol
  };
  std::vector<Member> members;  // only in the leader's answer
};

// ---- SyncGroup ----
struct SyncGroupParams {
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::vector<std::pair<std::string, Bytes>> assignments;  // member id, assignment (leader only)
  // v5+ (KIP-559): when given, must equal the group's protocol type / the
  // selected protocol, else INCONSISTENT_GROUP_PROTOCOL.
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
};
struct SyncGroupResult {
  ErrorCode error = ErrorCode::kNone;
  Bytes assignment;
  // The group's protocol type and selected protocol on success (v5+).
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
};

// ---- LeaveGroup ----
struct LeavingMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
};
struct LeaveGroupResult {
  ErrorCode error = ErrorCode::kNone;  // group-level
  std::vector<std::pair<LeavingMember, ErrorCode>> members;  // per member (v3+)
};

// ---- OffsetCommit / OffsetFetch / OffsetDelete ----
// A committed offset's partition: the one partition value type.
using TopicPartitionKey = spool::TopicPartition;
struct OffsetCommitEntry {
  TopicPartitionKey tp;
  int64_t offset = 0;
  int32_t leader_epoch = -1;
  std::optional<std::string> metadata;
};
struct OffsetCommitParams {
  std::string group_id;
  int32_t generation_id = -1;  // -1 with member_id "": simple (admin) commit
  std::string member_id;
  std::optional<std::string> group_instance_id;
  int64_t retention_time_ms = -1;  // v2-v4; -1 = broker default
  // v9+: a commit with a generation >= 0 for a group that does not exist
  // answers GROUP_ID_NOT_FOUND (older versions: ILLEGAL_GENERATION).
  bool group_id_not_found = false;
  std::vector<OffsetCommitEntry> offsets;
};
using PartitionErrors = std::vector<std::pair<TopicPartitionKey, ErrorCode>>;

struct CommittedOffset {
  TopicPartitionKey tp;
  int64_t offset = -1;  // -1: none committed
  int32_t leader_epoch = -1;
  std::optional<std::string> metadata;
  ErrorCode error = ErrorCode::kNone;
};
// ---- TxnOffsetCommit ----
// Offsets a transactional producer commits for a group (KIP-98; v3 adds the
// member identity of KIP-447, checked only when given).
struct TxnOffsetCommitParams {
  std::string transactional_id;
  std::string group_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t generation_id = -1;  // -1: not checked
  std::string member_id;       // "": not checked
  std::optional<std::string> group_instance_id;
  std::vector<OffsetCommitEntry> offsets;
  // A generation given for a group that does not exist: GROUP_ID_NOT_FOUND
  // (TxnOffsetCommit v6+, KIP-1319) instead of ILLEGAL_GENERATION.
  bool group_id_not_found_error = false;
};

struct OffsetFetchResult {
  ErrorCode error = ErrorCode::kNone;  // group-level
  std::vector<CommittedOffset> offsets;
};

// ---- DescribeGroups / ListGroups ----
struct DescribedMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  Bytes metadata;    // subscription for the selected protocol
  Bytes assignment;  // as distributed by SyncGroup
};
struct DescribedGroup {
  ErrorCode error = ErrorCode::kNone;
  bool exists = true;  // false: no such group (answered as state "Dead")
  std::string group_id;
  std::string state;  // "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"
  std::string protocol_type;
  std::string protocol_name;
  std::vector<DescribedMember> members;
};
struct ListedGroup {
  std::string group_id;
  std::string protocol_type;
  std::string state;
};

class GroupCoordinator {
 public:
  GroupCoordinator(OffsetsLog& log, GroupCoordinatorOptions options);
  ~GroupCoordinator();  // shutdown()
  GroupCoordinator(const GroupCoordinator&) = delete;
  GroupCoordinator& operator=(const GroupCoordinator&) = delete;

  // __consumer_offsets partition of a group.
  int32_t partition_for(const std::string& group_id) const;

  // Replays `partition` from the log and takes ownership of its groups. While
  // it runs, is_loading(partition) is true. Call from a background thread;
  // returns the replay's Status (a failed load leaves the partition
  // NOT_COORDINATOR and logs why).
  Status load_partition(int32_t partition);
  // Drops the partition's groups (members get NOT_COORDINATOR).
  void unload_partition(int32_t partition);
  bool is_loading(int32_t partition) const;
  // COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR or NONE for a group id.
  ErrorCode coordinator_status(const std::string& group_id) const;

  void join_group(JoinGroupParams p, std::function<void(JoinGroupResult)> done);
  void sync_group(SyncGroupParams p, std::function<void(SyncGroupResult)> done);
  ErrorCode heartbeat(const std::string& group_id, const std::string& member_id,
                      const std::optional<std::string>& group_instance_id, int32_t generation_id);
  LeaveGroupResult leave_group(const std::string& group_id, const std::vector<LeavingMember>& members);

  void commit_offsets(OffsetCommitParams p, std::function<void(PartitionErrors)> done);
  // TxnOffsetCommit: checks as Kafka's doTxnCommitOffsets (Dead ->
  // COORDINATOR_NOT_AVAILABLE, FENCED_INSTANCE_ID, UNKNOWN_MEMBER_ID when a
  // member id is given, ILLEGAL_GENERATION when a generation is given), then
  // appends the offsets as a transactional batch of the producer and answers
  // once durable (a fenced epoch: INVALID_PRODUCER_EPOCH). Like Kafka before
  // KIP-890, the transaction coordinator is not asked whether the producer's
  // transaction includes this group. The offsets stay pending (invisible to
  // OffsetFetch) until complete_txn_offsets.
  void commit_txn_offsets(TxnOffsetCommitParams p, std::function<void(PartitionErrors)> done);
  // A transaction marker of `producer_id` landed on __consumer_offsets
  // partition `offsets_partition` (called by the marker writer once the
  // marker is durable): COMMIT makes the producer's pending offsets of that
  // partition's groups committed, ABORT drops them. Idempotent; any thread.
  void complete_txn_offsets(int32_t offsets_partition, int64_t producer_id, bool commit);

  // topics == nullopt: every committed partition of the group. With
  // require_stable (OffsetFetch v7+), a requested partition with a pending
  // commit (in-flight or an open transaction's) answers
  // UNSTABLE_OFFSET_COMMIT (Kafka ignores it for the all-partitions form).
  OffsetFetchResult fetch_offsets(const std::string& group_id,
                                  const std::optional<std::vector<TopicPartitionKey>>& partitions,
                                  bool require_stable);
  // OffsetDelete. Per partition: GROUP_SUBSCRIBED_TO_TOPIC when a member of
  // the (consumer-protocol) group subscribes to the topic. Group-level error
  // (done's first argument): GROUP_ID_NOT_FOUND, NOT_COORDINATOR, ...
  void delete_offsets(const std::string& group_id, const std::vector<TopicPartitionKey>& partitions,
                      std::function<void(ErrorCode, PartitionErrors)> done);

  std::vector<DescribedGroup> describe_groups(const std::vector<std::string>& group_ids);
  // states_filter empty = all (case-insensitive match on state names).
  std::pair<ErrorCode, std::vector<ListedGroup>> list_groups(const std::vector<std::string>& states_filter);
  // Per group: NONE, GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, NOT_COORDINATOR, ...
  void delete_groups(const std::vector<std::string>& group_ids,
                     std::function<void(std::vector<std::pair<std::string, ErrorCode>>)> done);

  // Tests with start_reaper=false: move timers forward to the clock's now.
  void advance_clock(int64_t timeout_ms = 0);
  // Runs one offsets-retention pass now (normally every
  // offsets_retention_check_interval_ms); returns how many offsets expired.
  int expire_offsets_now();
  // Stops timers; pending joins and syncs are answered
  // COORDINATOR_NOT_AVAILABLE (their connections are usually gone by then).
  void shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spool::coordinator
