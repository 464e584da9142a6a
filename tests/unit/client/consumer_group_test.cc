// Group membership on the classic protocol, on a FakeSender and a
// ManualClock: FindCoordinator, JoinGroup with the MEMBER_ID_REQUIRED retry,
// the leader's assignment in SyncGroup, committed offsets, heartbeats,
// eager revocation, cooperative revocation of the partitions that move,
// lost partitions, commits during a rebalance, the leader's rejoin when a
// topic grows, and the poll timeout.
#include <gtest/gtest.h>

#include "client/consumer/consumer_loop.h"
#include "consumer_test_support.h"
#include "protocol/error_code.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/heartbeat_request.h"
#include "protocol/heartbeat_response.h"
#include "protocol/join_group_request.h"
#include "protocol/join_group_response.h"
#include "protocol/leave_group_request.h"
#include "protocol/list_offsets_request.h"
#include "protocol/offset_commit_request.h"
#include "protocol/offset_fetch_request.h"
#include "protocol/offset_fetch_response.h"
#include "protocol/sync_group_request.h"
#include "protocol/sync_group_response.h"

namespace spool::client {
namespace {

using protocol::ErrorCode;
using testing::FakeSender;
using Kind = RebalanceEvent::Kind;

std::vector<TopicPartition> foo(std::initializer_list<int32_t> ps) {
  std::vector<TopicPartition> out;
  for (int32_t p : ps) out.emplace_back("foo", p);
  return out;
}

class Group : public ::testing::Test {
 protected:
  void make(const config::PropertyList& extra = {}) {
    config::PropertyList props = {{"bootstrap.servers", "b0:9092"}, {"group.id", "g"}};
    props.insert(props.end(), extra.begin(), extra.end());
    auto c = ConsumerConfig::from_properties(props);
    ASSERT_TRUE(c.is_ok()) << c.status().message();
    loop = std::make_unique<ConsumerLoop>(*c, clock, net);
    ASSERT_TRUE(loop->subscriptions().subscribe({"foo"}).is_ok());
    loop->coordinator()->on_subscription_change();
    loop->coordinator()->on_app_poll();
  }
  // Metadata and FindCoordinator answered: the next pass sends JoinGroup.
  void discover(int32_t partitions = 4) {
    loop->run_once();
    auto md = net.take(protocol::MetadataResponse::kApiKey);
    ASSERT_TRUE(md.has_value());
    FakeSender::answer(*md, testing::metadata_answer({{"foo", partitions}}));
    loop->run_once();
    auto fc = net.take(protocol::FindCoordinatorRequest::kApiKey);
    ASSERT_TRUE(fc.has_value());
    EXPECT_EQ(FakeSender::decode<protocol::FindCoordinatorRequest>(*fc).key, "g");
    protocol::FindCoordinatorResponse r;
    r.node_id = 1;
    r.host = "b1";
    r.port = 9092;
    FakeSender::answer(*fc, r);
    loop->run_once();
  }
  protocol::JoinGroupRequest take_join(FakeSender::Sent* out) {
    auto s = net.take(protocol::JoinGroupRequest::kApiKey);
    EXPECT_TRUE(s.has_value());
    if (!s) return {};
    auto req = FakeSender::decode<protocol::JoinGroupRequest>(*s);
    *out = std::move(*s);
    return req;
  }
  static protocol::JoinGroupResponse join_ok(int32_t generation, const std::string& me, const std::string& leader,
                                             const std::string& protocol,
                                             const std::vector<std::pair<std::string, Subscription>>& members) {
    protocol::JoinGroupResponse r;
    r.generation_id = generation;
    r.member_id = me;
    r.leader = leader;
    r.protocol_type = kConsumerProtocolType;
    r.protocol_name = protocol;
    for (const auto& [id, sub] : members) {
      protocol::JoinGroupResponse::JoinGroupResponseMember m;
      m.member_id = id;
      m.metadata = encode_subscription(sub);
      r.members.push_back(m);
    }
    return r;
  }
  void sync_with(const std::vector<TopicPartition>& partitions, protocol::SyncGroupRequest* seen = nullptr) {
    auto s = net.take(protocol::SyncGroupRequest::kApiKey);
    ASSERT_TRUE(s.has_value());
    if (seen) *seen = FakeSender::decode<protocol::SyncGroupRequest>(*s);
    protocol::SyncGroupResponse r;
    r.protocol_type = kConsumerProtocolType;
    r.protocol_name = FakeSender::decode<protocol::SyncGroupRequest>(*s).protocol_name;
    Assignment a;
    a.partitions = partitions;
    r.assignment = encode_assignment(a);
    FakeSender::answer(*s, r);
    loop->run_once();
  }
  // Pops the next rebalance event and completes it (as poll() would).
  RebalanceEvent event() {
    EXPECT_FALSE(loop->ctx().events.empty());
    if (loop->ctx().events.empty()) return {};
    RebalanceEvent e = std::move(loop->ctx().events.front());
    loop->ctx().events.pop_front();
    auto done = e.done;
    loop->post(done);
    loop->run_once();
    return e;
  }
  // A lone member (leader) joined with `partitions` of foo.
  void join_alone(const std::string& protocol) {
    discover(2);
    FakeSender::Sent s;
    take_join(&s);
    Subscription mine;
    mine.topics = {"foo"};
    FakeSender::answer(s, join_ok(1, "m1", "m1", protocol, {{"m1", mine}}));
    loop->run_once();
    sync_with(foo({0, 1}));
    RebalanceEvent e = event();
    EXPECT_EQ(e.kind, Kind::kAssigned);
    EXPECT_EQ(e.partitions, foo({0, 1}));
  }
  void heartbeat_answer(ErrorCode code) {
    clock->advance(3000);
    loop->run_once();
    auto hb = net.take(protocol::HeartbeatRequest::kApiKey);
    ASSERT_TRUE(hb.has_value());
    protocol::HeartbeatResponse r;
    r.error_code = code;
    FakeSender::answer(*hb, r);
    loop->run_once();
  }

  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>(1000);
  FakeSender net;
  std::unique_ptr<ConsumerLoop> loop;
};

TEST_F(Group, JoinWithMemberIdRequiredThenLeaderAssigns) {
  make();
  discover();
  FakeSender::Sent s;
  auto join = take_join(&s);
  EXPECT_EQ(join.group_id, "g");
  EXPECT_EQ(join.member_id, "");
  EXPECT_EQ(join.protocol_type, "consumer");
  ASSERT_EQ(join.protocols.size(), 2u);  // Kafka's default: range, cooperative-sticky
  EXPECT_EQ(join.protocols[0].name, "range");
  EXPECT_EQ(join.protocols[1].name, "cooperative-sticky");
  auto sub = decode_subscription(join.protocols[0].metadata);
  ASSERT_TRUE(sub.is_ok());
  EXPECT_EQ(sub->topics, std::vector<std::string>{"foo"});
  EXPECT_EQ(join.session_timeout_ms, 45000);
  EXPECT_EQ(join.rebalance_timeout_ms, 300000);

  protocol::JoinGroupResponse required;
  required.error_code = ErrorCode::kMemberIdRequired;
  required.member_id = "m1";
  FakeSender::answer(s, required);
  loop->run_once();
  join = take_join(&s);
  EXPECT_EQ(join.member_id, "m1");

  Subscription other;
  other.topics = {"foo"};
  FakeSender::answer(s, join_ok(1, "m1", "m1", "range", {{"m1", *sub}, {"m2", other}}));
  loop->run_once();
  protocol::SyncGroupRequest sync;
  sync_with(foo({0, 1}), &sync);
  EXPECT_EQ(sync.generation_id, 1);
  EXPECT_EQ(sync.member_id, "m1");
  ASSERT_EQ(sync.assignments.size(), 2u);
  std::map<std::string, std::vector<TopicPartition>> got;
  for (const auto& a : sync.assignments) got[a.member_id] = decode_assignment(a.assignment)->partitions;
  EXPECT_EQ(got["m1"], foo({0, 1}));
  EXPECT_EQ(got["m2"], foo({2, 3}));

  EXPECT_EQ(loop->coordinator()->state(), MemberState::kStable);
  EXPECT_EQ(loop->coordinator()->generation(), 1);
  RebalanceEvent e = event();
  EXPECT_EQ(e.kind, Kind::kAssigned);
  EXPECT_EQ(e.partitions, foo({0, 1}));

  // Committed offsets of the new partitions: foo-0 at 5; foo-1 has none
  // and is reset (latest).
  auto of = net.take(protocol::OffsetFetchRequest::kApiKey);
  ASSERT_TRUE(of.has_value());
  protocol::OffsetFetchResponse r;
  r.topics.emplace_back();
  r.topics[0].name = "foo";
  protocol::OffsetFetchResponse::OffsetFetchResponseTopic::OffsetFetchResponsePartition p0, p1;
  p0.partition_index = 0;
  p0.committed_offset = 5;
  p1.partition_index = 1;
  p1.committed_offset = -1;
  r.topics[0].partitions = {p0, p1};
  FakeSender::answer(*of, r);
  loop->run_once();
  EXPECT_EQ(loop->subscriptions().state(foo({0})[0])->position->offset, 5);
  EXPECT_EQ(loop->subscriptions().state(foo({1})[0])->state, FetchState::kAwaitReset);
  EXPECT_EQ(net.count(protocol::ListOffsetsRequest::kApiKey), 1u);

  heartbeat_answer(ErrorCode::kNone);
  EXPECT_EQ(loop->coordinator()->state(), MemberState::kStable);
}

TEST_F(Group, FollowerSendsEmptySync) {
  make();
  discover();
  FakeSender::Sent s;
  take_join(&s);
  FakeSender::answer(s, join_ok(3, "m2", "m1", "range", {}));
  loop->run_once();
  protocol::SyncGroupRequest sync;
  sync_with(foo({2, 3}), &sync);
  EXPECT_TRUE(sync.assignments.empty());
  EXPECT_EQ(event().partitions, foo({2, 3}));
  EXPECT_EQ(loop->subscriptions().assigned(), (std::set<TopicPartition>{{"foo", 2}, {"foo", 3}}));
}

TEST_F(Group, EagerRebalanceRevokesEverythingBeforeJoining) {
  make();
  join_alone("range");
  heartbeat_answer(ErrorCode::kRebalanceInProgress);
  RebalanceEvent e = event();
  EXPECT_EQ(e.kind, Kind::kRevoked);
  EXPECT_EQ(e.partitions, foo({0, 1}));
  EXPECT_TRUE(loop->subscriptions().assigned().empty());
  FakeSender::Sent s;
  auto join = take_join(&s);
  EXPECT_EQ(join.member_id, "m1");
  auto sub = decode_subscription(join.protocols[0].metadata);
  EXPECT_TRUE(sub->owned_partitions.empty());
}

TEST_F(Group, CooperativeRevokesOnlyWhatMovesThenRejoins) {
  make({{"partition.assignment.strategy", "cooperative-sticky"}});
  EXPECT_EQ(loop->coordinator()->protocol(), RebalanceProtocol::kCooperative);
  join_alone("cooperative-sticky");
  heartbeat_answer(ErrorCode::kRebalanceInProgress);
  EXPECT_TRUE(loop->ctx().events.empty());  // nothing revoked before joining
  FakeSender::Sent s;
  auto join = take_join(&s);
  auto sub = decode_subscription(join.protocols[0].metadata);
  EXPECT_EQ(sub->owned_partitions, foo({0, 1}));
  EXPECT_EQ(sub->generation_id, 1);
  EXPECT_EQ(loop->subscriptions().assigned().size(), 2u);  // still owned while rebalancing

  FakeSender::answer(s, join_ok(2, "m1", "m2", "cooperative-sticky", {}));
  loop->run_once();
  sync_with(foo({0}));
  RebalanceEvent revoked = event();
  EXPECT_EQ(revoked.kind, Kind::kRevoked);
  EXPECT_EQ(revoked.partitions, foo({1}));
  RebalanceEvent assigned = event();
  EXPECT_EQ(assigned.kind, Kind::kAssigned);
  EXPECT_TRUE(assigned.partitions.empty());
  EXPECT_EQ(loop->subscriptions().assigned(), (std::set<TopicPartition>{{"foo", 0}}));
  // The revocation makes the member rejoin, owning foo-0 only.
  loop->run_once();
  join = take_join(&s);
  sub = decode_subscription(join.protocols[0].metadata);
  EXPECT_EQ(sub->owned_partitions, foo({0}));
  EXPECT_EQ(sub->generation_id, 2);
}

TEST_F(Group, IllegalGenerationLosesPartitions) {
  make();
  join_alone("range");
  heartbeat_answer(ErrorCode::kIllegalGeneration);
  EXPECT_EQ(loop->coordinator()->generation(), -1);
  RebalanceEvent e = event();
  EXPECT_EQ(e.kind, Kind::kLost);
  EXPECT_EQ(e.partitions, foo({0, 1}));
  FakeSender::Sent s;
  EXPECT_EQ(take_join(&s).member_id, "m1");  // as Java: the id stays valid, so it is kept
}

TEST_F(Group, UnknownMemberIdRejoinsWithoutAnId) {
  make();
  join_alone("range");
  heartbeat_answer(ErrorCode::kUnknownMemberId);
  EXPECT_EQ(event().kind, Kind::kLost);
  FakeSender::Sent s;
  EXPECT_EQ(take_join(&s).member_id, "");
}

// The eager revoke callback commits while the member prepares to rejoin: it
// is still in its generation, so the commit carries it (a commit without
// one is refused for a group with members, and the member would rejoin
// under a new id while the old one waits out its session).
TEST_F(Group, RevokeCallbackCommitCarriesTheGeneration) {
  make();
  join_alone("range");
  heartbeat_answer(ErrorCode::kRebalanceInProgress);
  ASSERT_FALSE(loop->ctx().events.empty());  // the revocation waits for poll()
  std::optional<Status> result;
  loop->coordinator()->commit({{{"foo", 0}, OffsetAndMetadata{7, -1, ""}}}, [&](Status s) { result = s; });
  auto sent = net.take(protocol::OffsetCommitRequest::kApiKey);
  ASSERT_TRUE(sent.has_value());
  auto req = FakeSender::decode<protocol::OffsetCommitRequest>(*sent);
  EXPECT_EQ(req.generation_id_or_member_epoch, 1);
  EXPECT_EQ(req.member_id, "m1");
}

// Between JoinGroup and the assignment there is no generation to commit
// with: the commit fails at once with REBALANCE_IN_PROGRESS, as Java's.
TEST_F(Group, CommitWhileJoiningFailsAtOnce) {
  make({{"partition.assignment.strategy", "cooperative-sticky"}});
  join_alone("cooperative-sticky");
  heartbeat_answer(ErrorCode::kRebalanceInProgress);
  FakeSender::Sent s;
  take_join(&s);
  std::optional<Status> result;
  loop->coordinator()->commit({{{"foo", 0}, OffsetAndMetadata{7, -1, ""}}}, [&](Status st) { result = st; });
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->kafka_code(), protocol::to_int(ErrorCode::kRebalanceInProgress));
  EXPECT_EQ(net.count(protocol::OffsetCommitRequest::kApiKey), 0u);
  EXPECT_EQ(loop->coordinator()->generation(), 1);  // still a member: nothing reset
}

TEST_F(Group, PollTimeoutLeavesTheGroup) {
  make({{"max.poll.interval.ms", "10000"}});
  join_alone("range");
  for (int i = 0; i < 3; ++i) heartbeat_answer(ErrorCode::kNone);  // heartbeats go on without poll()
  clock->advance(3000);  // 12 s since the last poll()
  loop->run_once();
  EXPECT_EQ(net.count(protocol::LeaveGroupRequest::kApiKey), 1u);
  EXPECT_EQ(loop->coordinator()->state(), MemberState::kUnjoined);
  EXPECT_EQ(net.count(protocol::JoinGroupRequest::kApiKey), 0u);  // not before the next poll()
  loop->coordinator()->on_app_poll();
  loop->run_once();
  EXPECT_EQ(event().kind, Kind::kLost);
  EXPECT_EQ(net.count(protocol::JoinGroupRequest::kApiKey), 1u);
}

// The leader assigned from foo's 2 partitions; when the metadata shows 4 it
// asks for a rebalance (Java's assignment snapshot), a follower would not.
TEST_F(Group, LeaderRejoinsWhenATopicGrows) {
  make();
  join_alone("range");
  heartbeat_answer(ErrorCode::kNone);
  EXPECT_EQ(net.count(protocol::JoinGroupRequest::kApiKey), 0u);
  loop->ctx().metadata.request_update();
  loop->run_once();
  auto md = net.take(protocol::MetadataResponse::kApiKey);
  ASSERT_TRUE(md.has_value());
  FakeSender::answer(*md, testing::metadata_answer({{"foo", 4}}));
  loop->run_once();
  EXPECT_EQ(event().kind, Kind::kRevoked);  // eager: everything goes before the rejoin
  FakeSender::Sent s;
  EXPECT_EQ(take_join(&s).member_id, "m1");
}

}  // namespace
}  // namespace spool::client
