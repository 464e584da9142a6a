// ConsumerCoordinator: the consumer's membership in a group on the classic
// protocol (Kafka's AbstractCoordinator + ConsumerCoordinator), driven by
// the consumer loop's poll(). Three files: consumer_coordinator.cc holds
// FindCoordinator, the rebalance (JoinGroup, SyncGroup), Heartbeat and
// LeaveGroup; coordinator_leader.cc the leader's assignment;
// coordinator_offsets.cc OffsetFetch (committed positions), OffsetCommit
// and auto-commit.
//
// Rebalance, as Java: once the application has polled, a subscribed member
// with no generation (or asked to rejoin) prepares: it commits its consumed
// offsets (enable.auto.commit), then revokes (eager: every partition,
// before JoinGroup; cooperative: only partitions that left the
// subscription) or, when its generation was lost (UNKNOWN_MEMBER_ID,
// ILLEGAL_GENERATION, poll timeout), reports them lost; then JoinGroup with
// one protocol per partition.assignment.strategy entry (the Subscription:
// topics, the assignor's user data, owned partitions, generation, rack).
// MEMBER_ID_REQUIRED: the answer's member id is kept and JoinGroup sent
// again at once. The leader decodes every member's subscription, makes
// sure the metadata holds all their topics, runs the chosen assignor and
// sends the assignments in SyncGroup; followers send an empty SyncGroup.
// The assignment then applies: cooperative revokes what moved away first
// (the listener, then the partitions go) and rejoins afterwards, so the
// moved partitions reach their new owner in the next round. The leader
// remembers the partition counts it assigned from and asks for a rebalance
// when the metadata shows another count for one of the group's topics (a
// topic grew, or one the group subscribes to appeared), as Java's
// assignment snapshot. The rebalance
// protocol is cooperative only when every configured assignor supports it
// (Kafka's default "range, cooperative-sticky" is therefore eager).
// Listener calls go to the application thread as RebalanceEvents
// (consumer_context.h); the rebalance waits for each to finish.
//
// Heartbeats every heartbeat.interval.ms while stable, sent by the loop
// thread whether or not the application polls. REBALANCE_IN_PROGRESS asks
// for a rejoin; UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION drop the generation;
// NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE / a failed request forget the
// coordinator (found again with FindCoordinator); FENCED_INSTANCE_ID is
// fatal. No successful heartbeat for session.timeout.ms forgets the
// coordinator too. When the application has not polled for
// max.poll.interval.ms the member leaves the group (a static member, with
// group.instance.id, only drops its generation, as Java) and rejoins on its
// next poll. close() leaves with LeaveGroup (dynamic members only).
//
// Fatal and group-level errors (FENCED_INSTANCE_ID,
// INCONSISTENT_GROUP_PROTOCOL, GROUP_AUTHORIZATION_FAILED, ...) are kept for
// the next poll() (take_error()). Versions: FindCoordinator v0-3,
// JoinGroup v0-9, SyncGroup v0-5, Heartbeat v0-4, LeaveGroup v0-5,
// OffsetFetch v1-7, OffsetCommit v2-9.
// Not thread-safe: the consumer loop owns it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/consumer/consumer_context.h"
#include "client/consumer/partition_assignor.h"
#include "protocol/join_group_response.h"

namespace spool::client {

enum class MemberState : int8_t { kUnjoined, kPreparing, kJoining, kSyncing, kStable };

class ConsumerCoordinator {
 public:
  using CommitCallback = std::function<void(Status)>;
  using CommittedCallback = std::function<void(Result<std::map<TopicPartition, OffsetAndMetadata>>)>;

  ConsumerCoordinator(ConsumerContext& ctx, std::vector<std::unique_ptr<PartitionAssignor>> assignors);

  // One pass: coordinator discovery, rebalance steps, heartbeat, poll
  // timeout, committed offsets of new partitions, auto-commit. Returns the
  // ms until it next needs the loop.
  int64_t poll();
  // The application called poll() (max.poll.interval.ms counts from here).
  void on_app_poll() { last_app_poll_ms_ = ctx_.now(); }
  void request_rejoin(const std::string& reason);
  // The subscription changed: rejoin when subscribed, and revoke what left it.
  void on_subscription_change();

  // coordinator_offsets.cc: one attempt each; callbacks run on the loop.
  void commit(const std::map<TopicPartition, OffsetAndMetadata>& offsets, CommitCallback callback);
  // Partitions without a committed offset are absent from the answer.
  void fetch_committed(const std::set<TopicPartition>& partitions, CommittedCallback callback);

  // close()/unsubscribe(): revoke (or lose) the owned partitions through
  // the listener, then LeaveGroup; `done` runs once the leave is answered.
  void leave_group(const std::string& reason, std::function<void()> done);

  Status take_error();
  bool coordinator_known() const { return coordinator_.has_value(); }
  MemberState state() const { return state_; }
  int32_t generation() const { return generation_id_; }
  const std::string& member_id() const { return member_id_; }
  RebalanceProtocol protocol() const { return protocol_; }
  bool rebalance_pending() const { return state_ != MemberState::kStable || rejoin_needed_; }

 private:
  // consumer_coordinator.cc
  void find_coordinator();
  void mark_coordinator_unknown(const std::string& why);
  void prepare_join();
  void send_join();
  void on_join(Result<Reply<protocol::JoinGroupResponse>>& r);
  bool leader_assign(const protocol::JoinGroupResponse& resp);
  void send_sync(std::map<std::string, Bytes> assignments);
  void on_sync_assignment(ByteSpan assignment_bytes);
  void apply_assignment(const std::set<TopicPartition>& assigned, const std::set<TopicPartition>& revoked);
  void send_heartbeat();
  void send_leave(const std::string& reason, std::function<void()> done);
  // Back to no generation, to rejoin; the member id goes too unless the
  // error leaves it valid (ILLEGAL_GENERATION).
  void reset_generation(const std::string& why, bool reset_member_id = true);
  // Between JoinGroup and the assignment, or about to rejoin in a generation.
  bool rebalancing() const {
    return state_ == MemberState::kJoining || state_ == MemberState::kSyncing ||
           (state_ == MemberState::kUnjoined && generation_id_ >= 0);
  }
  void fail(Status s);
  void emit(RebalanceEvent::Kind kind, std::vector<TopicPartition> partitions, std::function<void()> done);
  PartitionAssignor* assignor(const std::string& name);
  std::set<TopicPartition> owned() const;
  bool leader_metadata_changed() const;
  // coordinator_offsets.cc
  void maybe_fetch_initial_offsets();
  void maybe_auto_commit();
  // `sent_generation`: the generation the failed request carried.
  void on_commit_error(int16_t code, int32_t sent_generation);

  ConsumerContext& ctx_;
  std::vector<std::unique_ptr<PartitionAssignor>> assignors_;
  RebalanceProtocol protocol_ = RebalanceProtocol::kEager;

  std::optional<Node> coordinator_;
  bool find_in_flight_ = false;
  int64_t find_retry_ms_ = 0;

  MemberState state_ = MemberState::kUnjoined;
  bool rejoin_needed_ = true;
  bool left_ = false;  // left by leave_group(): no rejoining until the subscription changes
  int64_t join_retry_ms_ = 0;
  int32_t generation_id_ = -1;
  std::string member_id_;
  std::string protocol_name_;
  int32_t events_pending_ = 0;  // listener calls not yet done
  std::set<std::string> joined_topics_;  // the subscription at the last JoinGroup
  // The leader's answer waiting for metadata of the members' topics.
  std::optional<protocol::JoinGroupResponse> leader_pending_;
  int64_t leader_wait_until_ms_ = 0;
  // Leader: the partition count of each of the group's topics it assigned
  // from (0: not in the metadata), until the next JoinGroup.
  PartitionCounts leader_counts_;

  bool heartbeat_in_flight_ = false;
  int64_t next_heartbeat_ms_ = 0;
  int64_t last_heartbeat_ok_ms_ = 0;
  int64_t last_app_poll_ms_ = -1;

  bool offset_fetch_in_flight_ = false;
  int64_t offset_fetch_retry_ms_ = 0;
  int64_t next_auto_commit_ms_ = 0;
  bool auto_commit_in_flight_ = false;
  Status error_;
};

// The rebalance protocol every assignor supports (cooperative only if all do).
RebalanceProtocol common_protocol(const std::vector<std::unique_ptr<PartitionAssignor>>& assignors);

}  // namespace spool::client
