// GroupCoordinator::Impl: the state shared by the coordinator's source files
// (membership.cc: join/sync/heartbeat/leave and rebalance timers;
// offsets.cc: commits, fetches, deletes, retention; group_coordinator.cc:
// partitions, loading, describe/list/delete, lifecycle).
// Locking: `mu` (shared) guards `groups`, `owned`, `loading`; each group has
// its own recursive lock (Group::lock). Order: mu may be taken while holding
// a group lock only briefly (lookups/removals); never call the log or a
// client callback while holding mu. Client callbacks go through Group::defer.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "coordinator/group/group.h"
#include "coordinator/group/group_coordinator.h"
#include "timer/purgatory.h"

namespace spool::coordinator {

// Kafka's NewMemberJoinTimeoutMs: a new member's pending join is dropped
// after this long (it cannot heartbeat before it has a member id).
inline constexpr int64_t kNewMemberJoinTimeoutMs = 5 * 60 * 1000;

// Java's String.hashCode of the UTF-16 form of a UTF-8 string.
int32_t java_string_hash(const std::string& s);

// Append failures mapped to what clients understand (Kafka's mapping).
ErrorCode group_store_error(const Status& s);
ErrorCode offset_store_error(const Status& s);

// A member of a group: the heartbeat purgatory's key.
struct MemberKey {
  std::string group_id;
  std::string member_id;
  bool operator==(const MemberKey&) const = default;
};
struct MemberKeyHash {
  size_t operator()(const MemberKey& k) const noexcept {
    return std::hash<std::string>{}(k.group_id) * 31u + std::hash<std::string>{}(k.member_id);
  }
};

struct GroupCoordinator::Impl {
  Impl(GroupCoordinator& self, OffsetsLog& log, GroupCoordinatorOptions options);

  GroupCoordinator& self;
  OffsetsLog& log;
  GroupCoordinatorOptions opts;
  std::shared_ptr<timer::Clock> clock;
  timer::Purgatory<std::string> join_purgatory;          // DelayedJoin, by group id
  timer::Purgatory<MemberKey, MemberKeyHash> heartbeat_purgatory;  // DelayedHeartbeat, by member

  mutable std::shared_mutex mu;
  std::unordered_map<std::string, std::shared_ptr<Group>> groups;
  std::set<int32_t> owned;
  std::set<int32_t> loading;
  std::atomic<bool> shutting_down{false};
  // Source of OffsetEntry::log_order (taken under the group's lock right
  // before its append, so one group's orders follow its log order).
  std::atomic<int64_t> next_log_order{0};
  // Markers that arrived for a partition while it loaded: applied to the
  // loaded groups before they become visible. Guarded by mu.
  std::map<int32_t, std::vector<std::pair<int64_t, bool>>> markers_while_loading;

  std::thread retention_thread;
  std::mutex retention_mu;
  std::condition_variable retention_cv;
  bool retention_stop = false;

  int64_t wall_now() const;
  // NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS / NONE.
  ErrorCode status_for(const std::string& group_id) const;
  std::shared_ptr<Group> get_group(const std::string& group_id) const;
  std::shared_ptr<Group> get_or_create_group(const std::string& group_id, bool create);
  // Drops g from the map if it is still the registered instance.
  void forget_group(const std::shared_ptr<Group>& g);

  // The join purgatory's key: the group id. The heartbeat purgatory's: the
  // (group, member) pair, compared whole, so two pairs never share a key (a
  // shared key would let one group's check take another group's lock).
  static std::string join_key(const Group& g) { return g.id; }
  static MemberKey member_key(const Group& g, const std::string& member_id) { return {g.id, member_id}; }

  // ---- membership.cc (all under the group lock) ----
  void join(JoinGroupParams p, std::function<void(JoinGroupResult)> done);
  void sync(SyncGroupParams p, std::function<void(SyncGroupResult)> done);
  ErrorCode heartbeat(const std::string& group_id, const std::string& member_id,
                      const std::optional<std::string>& instance_id, int32_t generation);
  LeaveGroupResult leave(const std::string& group_id, const std::vector<LeavingMember>& members);

  void do_new_member_join(const std::shared_ptr<Group>& g, JoinGroupParams& p,
                          std::function<void(JoinGroupResult)>& done);
  void do_current_member_join(const std::shared_ptr<Group>& g, JoinGroupParams& p,
                              std::function<void(JoinGroupResult)>& done);
  void add_member_and_rebalance(const std::shared_ptr<Group>& g, const std::string& member_id, JoinGroupParams& p,
                                std::function<void(JoinGroupResult)> done);
  void update_static_member_and_rebalance(const std::shared_ptr<Group>& g, const std::string& old_id,
                                          const std::string& new_id, JoinGroupParams& p,
                                          std::function<void(JoinGroupResult)> done);
  void maybe_prepare_rebalance(const std::shared_ptr<Group>& g);
  void prepare_rebalance(const std::shared_ptr<Group>& g);
  void schedule_initial_join(const std::shared_ptr<Group>& g, int64_t delay_ms, int64_t remaining_ms);
  void schedule_join(const std::shared_ptr<Group>& g, int64_t delay_ms);
  void on_complete_join(const std::shared_ptr<Group>& g);
  void schedule_pending_sync(const std::shared_ptr<Group>& g);
  void schedule_heartbeat(const std::shared_ptr<Group>& g, Member& m, int64_t timeout_ms);
  void schedule_pending_member_expiry(const std::shared_ptr<Group>& g, const std::string& member_id,
                                      int64_t timeout_ms);
  void on_expire_heartbeat(const std::shared_ptr<Group>& g, const std::string& member_id);
  void remove_member_and_update_group(const std::shared_ptr<Group>& g, const std::string& member_id);
  void remove_pending_member(const std::shared_ptr<Group>& g, const std::string& member_id);
  void reset_and_propagate_assignment_error(const std::shared_ptr<Group>& g, ErrorCode error);
  void propagate_assignment(const std::shared_ptr<Group>& g, ErrorCode error);
  // Persists the group's metadata record (members' subscriptions for the
  // selected protocol and `assignment`, or the members' current ones).
  void store_group(const std::shared_ptr<Group>& g, const std::map<std::string, Bytes>* assignment,
                   std::function<void(ErrorCode)> done);

  // ---- offsets.cc ----
  void commit(OffsetCommitParams p, std::function<void(PartitionErrors)> done);
  OffsetFetchResult fetch(const std::string& group_id, const std::optional<std::vector<TopicPartitionKey>>& tps,
                          bool require_stable);
  void delete_offsets(const std::string& group_id, const std::vector<TopicPartitionKey>& tps,
                      std::function<void(ErrorCode, PartitionErrors)> done);
  int expire_offsets();
  // ---- txn_offsets.cc ----
  void commit_txn(TxnOffsetCommitParams p, std::function<void(PartitionErrors)> done);
  void complete_txn(int32_t partition, int64_t producer_id, bool commit);
  // Removes the given offsets (tombstones) and, when g ends Empty without
  // offsets, the group itself (Dead + group tombstone). Under g's lock.
  // Returns the records to append (caller appends).
  std::vector<LogRecord> cleanup_group(const std::shared_ptr<Group>& g, const std::vector<TopicPartitionKey>& tps);
};

}  // namespace spool::coordinator
