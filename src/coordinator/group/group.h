// Group: metadata of one classic consumer group (Kafka's GroupMetadata):
// state, generation, selected protocol, leader, members, static members,
// pending (MEMBER_ID_REQUIRED) members and committed offsets.
// Ownership: held by the coordinator's group map through shared_ptr; timers
// keep a reference while they wait.
// Threading: every field is guarded by `lock` (recursive, shared with the
// group's delayed operations). Callbacks to clients are queued in `outbox`
// and run by GroupLock after the lock is released, so no client callback
// ever runs under a coordinator lock.
// Failure: none here; the coordinator validates before mutating.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/group/member.h"

namespace spool::coordinator {

enum class GroupState { kEmpty, kPreparingRebalance, kCompletingRebalance, kStable, kDead };
const char* state_name(GroupState s);

struct OffsetEntry {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp = 0;
  int64_t expire_timestamp = -1;  // custom retention (OffsetCommit v2-v4)
  // Where the commit sits in the log relative to the group's other commits
  // (a coordinator-wide counter taken when the append is issued, or the
  // replay position): when a transaction's offsets are committed after a
  // plain commit that the log holds later, the later one must win.
  int64_t log_order = -1;
};

// A transactional offset commit waiting for its transaction's marker
// (Kafka's pendingTransactionalOffsetCommits entry).
struct PendingTxnOffset {
  OffsetEntry entry;
  bool appended = false;  // durable in the log (only such entries can commit)
};

class Group {
 public:
  Group(std::string id, int32_t partition, int64_t now_wall_ms);

  const std::string id;
  const int32_t partition;
  const std::shared_ptr<std::recursive_mutex> lock = std::make_shared<std::recursive_mutex>();

  GroupState state = GroupState::kEmpty;
  int64_t state_timestamp_ms = -1;  // wall time of the last transition
  int32_t generation = 0;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::optional<std::string> leader_id;
  std::map<std::string, std::shared_ptr<Member>> members;
  std::map<std::string, std::string> static_members;  // instance id -> member id
  std::set<std::string> pending_members;
  // Members of this generation that have not sent SyncGroup yet (Kafka's
  // pendingSyncMembers): removed if still silent after the rebalance timeout.
  std::set<std::string> pending_sync_members;
  int num_awaiting_join = 0;
  bool new_member_added = false;  // extends the initial rebalance delay
  // Topics the members subscribe to (consumer protocol); nullopt = unknown.
  std::optional<std::set<std::string>> subscribed_topics;

  std::map<TopicPartitionKey, OffsetEntry> offsets;
  std::map<TopicPartitionKey, int> pending_offset_commits;  // in-flight appends
  // Producer id -> offsets its open transaction committed (TxnOffsetCommit),
  // invisible to OffsetFetch until the COMMIT marker.
  std::map<int64_t, std::map<TopicPartitionKey, PendingTxnOffset>> pending_txn_offsets;

  // Client callbacks to run once the lock is released (see GroupLock).
  std::vector<std::function<void()>> outbox;
  int lock_depth = 0;

  void transition_to(GroupState s, int64_t now_wall_ms);
  bool is(GroupState s) const { return state == s; }
  bool has(const std::string& member_id) const { return members.count(member_id) != 0; }
  Member* get(const std::string& member_id) const;
  bool is_leader(const std::string& member_id) const { return leader_id && *leader_id == member_id; }
  bool can_rebalance() const;

  // Kafka's supportsProtocols: an empty group takes any non-empty list;
  // otherwise the type must match and one protocol must be common to all.
  bool supports_protocols(const std::string& type, const ProtocolList& protocols) const;
  void add(std::shared_ptr<Member> m, std::function<void(JoinGroupResult)> callback);
  // Removes a member (or pending member); re-elects the leader if needed.
  // Returns the removed member (null if unknown).
  std::shared_ptr<Member> remove(const std::string& member_id);
  void update_member(Member& m, ProtocolList protocols, std::function<void(JoinGroupResult)> callback);
  // Moves a static member to a new member id; pending join/sync answers of
  // the old id are fenced (queued in outbox).
  Member* replace_static_member(const std::string& instance_id, const std::string& old_id, const std::string& new_id);

  std::optional<std::string> static_member_id(const std::string& instance_id) const;
  // A request naming an instance id now owned by another member id.
  bool is_static_member_fenced(const std::string& member_id, const std::optional<std::string>& instance_id) const;
  bool all_members_joined() const {
    return static_cast<int>(members.size()) == num_awaiting_join && pending_members.empty();
  }
  int32_t rebalance_timeout_ms() const;
  // Protocol vote: candidates supported by every member, each member votes
  // its first candidate, most votes wins; ties go to the leader's (else the
  // first member's) preference order. "" when there are no members.
  std::string select_protocol() const;
  // Leader kept if it rejoined, else the first member that did; false when
  // nobody rejoined.
  bool maybe_elect_new_joined_leader();
  void init_next_generation(int64_t now_wall_ms);
  std::vector<JoinGroupResult::Member> current_member_metadata() const;
  bool is_subscribed_to_topic(const std::string& topic) const {
    return subscribed_topics && subscribed_topics->count(topic) != 0;
  }

  // Queue a client answer (runs after the outermost GroupLock releases).
  void invoke_join(Member& m, JoinGroupResult r);
  void invoke_sync(Member& m, SyncGroupResult r);
  void defer(std::function<void()> f) { outbox.push_back(std::move(f)); }

  // From the members' "consumer" subscriptions for the selected protocol.
  void recompute_subscribed_topics();

  // A plain commit in flight or a transaction's pending one (OffsetFetch's
  // UNSTABLE_OFFSET_COMMIT; retention leaves such partitions alone).
  bool has_pending_commit(const TopicPartitionKey& tp) const;
  bool has_pending_txn_offsets() const { return !pending_txn_offsets.empty(); }
  // Stores `e` unless the committed entry is newer in the log.
  void put_offset_if_newer(const TopicPartitionKey& tp, const OffsetEntry& e);
  // Ends `producer_id`'s transaction: COMMIT makes its appended offsets
  // committed, ABORT drops them. Returns how many became visible.
  int complete_txn(int64_t producer_id, bool commit);
  // Forgets pending transactional offsets of these partitions (group or
  // offset deletion, as Kafka's removeOffsets).
  void drop_pending_txn_offsets(const TopicPartitionKey& tp);
};

// Locks a group; when the outermost holder on this thread releases it, the
// queued client callbacks run outside the lock.
class GroupLock {
 public:
  explicit GroupLock(Group& g) : g_(g) {
    g_.lock->lock();
    ++g_.lock_depth;
  }
  ~GroupLock();
  GroupLock(const GroupLock&) = delete;
  GroupLock& operator=(const GroupLock&) = delete;

 private:
  Group& g_;
};

}  // namespace spool::coordinator
