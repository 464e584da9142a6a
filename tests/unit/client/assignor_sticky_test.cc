// The "sticky" and "cooperative-sticky" specific scenarios of Kafka's
// StickyAssignorTest and CooperativeStickyAssignorTest (non-rack cases).
#include "assignor_sticky_fixture.h"

namespace spool::client {
namespace {

using namespace testing;  // NOLINT: test helpers

const std::string kTopic = "topic", kT1 = "topic1", kT2 = "topic2", kT3 = "topic3";
const std::string kC1 = "consumer1", kC2 = "consumer2", kC3 = "consumer3";
constexpr int32_t kGeneration = 1;

// Kafka's buildSubscriptionV0/V1 for the sticky assignor: the previous
// assignment in the user data only (v0), or also as owned partitions (v1);
// no generation in the subscription.
Subscription sticky_v0(std::vector<std::string> topics, TPs partitions, int32_t generation) {
  Subscription s = sub(std::move(topics));
  s.user_data = encode_sticky_user_data(MemberData{partitions, generation});
  return s;
}
Subscription sticky_v1(std::vector<std::string> topics, TPs partitions, int32_t generation) {
  Subscription s = sticky_v0(std::move(topics), partitions, generation);
  s.owned_partitions = std::move(partitions);
  return s;
}

class StickyOnly : public StickyFixture {};
class CooperativeOnly : public StickyFixture {};

TEST(StickyAssignor, NameProtocolsAndUserData) {
  StickyAssignor a;
  EXPECT_EQ(a.name(), "sticky");
  EXPECT_EQ(a.supported_protocols(), std::vector<RebalanceProtocol>{RebalanceProtocol::kEager});
  EXPECT_FALSE(a.subscription_user_data({kTopic}).has_value());  // nothing assigned yet
  a.on_assignment(Assignment{{tp(kTopic, 1)}, std::nullopt}, 1);
  Subscription s = sub({kTopic});
  s.user_data = a.subscription_user_data({kTopic});
  s.owned_partitions = {tp(kTopic, 0)};  // inconsistent with the user data
  // The eager sticky assignor always honors its user data.
  EXPECT_EQ(a.member_data(s), (MemberData{{tp(kTopic, 1)}, 1}));
}

TEST(StickyAssignor, MemberDataAtEveryProtocolVersionAndWillHonorUserData) {
  StickyAssignor a;
  const TPs owned{tp(kT1, 0), tp(kT2, 1)};
  for (const Subscription& s : {sticky_v0({kTopic}, owned, kGeneration), sticky_v1({kTopic}, owned, kGeneration)}) {
    EXPECT_EQ(a.member_data(s), (MemberData{owned, kGeneration}));
  }
  Subscription newer = sticky_v0({kTopic}, owned, kGeneration - 1);
  newer.generation_id = kGeneration;  // the user data's generation wins
  EXPECT_EQ(a.member_data(newer), (MemberData{owned, kGeneration - 1}));
  EXPECT_EQ(a.member_data(sub({kTopic})), MemberData{});
}

TEST_P(StickyOnly, OwnedPartitionClaimedByTwoMembersInSameGenerationIsInvalidated) {
  MemberSubscriptions subs{{kC1, v2({kTopic}, {tp(kTopic, 0), tp(kTopic, 1)}, kGeneration)},
                           {kC2, v2({kTopic}, {tp(kTopic, 0), tp(kTopic, 2)}, kGeneration)},
                           {kC3, v2({kTopic}, {}, kGeneration)}};
  auto a = assign({{kTopic, 3}}, subs);
  EXPECT_EQ(a[kC1], (TPs{tp(kTopic, 1)}));
  EXPECT_EQ(a[kC2], (TPs{tp(kTopic, 2)}));
  EXPECT_EQ(a[kC3], (TPs{tp(kTopic, 0)}));
  verify(subs, a, {{kTopic, 3}});
  a = assign({{kTopic, 4}}, subs);  // unequal partitions per member
  EXPECT_EQ(a[kC1], (TPs{tp(kTopic, 1), tp(kTopic, 3)}));
  EXPECT_EQ(a[kC2], (TPs{tp(kTopic, 2)}));
  EXPECT_EQ(a[kC3], (TPs{tp(kTopic, 0)}));
}

TEST_P(StickyOnly, AssignmentWithMultipleGenerations1) {
  for (bool all_equal : {true, false}) {
    SCOPED_TRACE(all_equal ? "equal subscriptions" : "different subscriptions");
    const std::vector<std::string> all{kTopic, kT2};
    const std::vector<std::string> c2_topics = all_equal ? all : std::vector<std::string>{kTopic};
    const PartitionCounts counts{{kTopic, 6}, {kT2, 6}};
    MemberSubscriptions subs{{kC1, sub(all)}, {kC2, sub(c2_topics)}, {kC3, sub(all)}};
    auto a = assign(counts, subs);
    const TPs r1_1 = a[kC1], r1_2 = a[kC2], r1_3 = a[kC3];
    EXPECT_TRUE(r1_1.size() == 4 && r1_2.size() == 4 && r1_3.size() == 4);
    verify(subs, a, counts);

    subs[kC1] = v2(all, r1_1, kGeneration);
    subs[kC2] = v2(c2_topics, r1_2, kGeneration);
    subs.erase(kC3);
    a = assign(counts, subs);
    const TPs r2_1 = a[kC1], r2_2 = a[kC2];
    EXPECT_TRUE(r2_1.size() == 6 && r2_2.size() == 6);
    if (all_equal) {
      for (const auto& p : r1_1) EXPECT_TRUE(as_set(r2_1).count(p));
    }
    for (const auto& p : r1_2) EXPECT_TRUE(as_set(r2_2).count(p));
    verify(subs, a, counts);
    const auto r1_3_set = as_set(r1_3);
    EXPECT_TRUE(std::any_of(r2_2.begin(), r2_2.end(), [&](const auto& p) { return r1_3_set.count(p) > 0; }));

    subs.erase(kC1);
    subs[kC2] = v2(c2_topics, r2_2, 2);
    subs[kC3] = v2(all, r1_3, 1);
    a = assign(counts, subs);
    EXPECT_TRUE(a[kC2].size() == 6 && a[kC3].size() == 6);
    verify(subs, a, counts);
  }
}

TEST_P(StickyOnly, AssignmentWithMultipleGenerations2) {
  for (bool all_equal : {true, false}) {
    SCOPED_TRACE(all_equal ? "equal subscriptions" : "different subscriptions");
    const std::vector<std::string> all{kTopic, kT2, kT3};
    const std::vector<std::string> c1_topics = all_equal ? all : std::vector<std::string>{kTopic};
    const std::vector<std::string> c3_topics = all_equal ? all : std::vector<std::string>{kTopic, kT2};
    const PartitionCounts counts{{kTopic, 4}, {kT2, 4}, {kT3, 4}};
    MemberSubscriptions subs{{kC1, sub(c1_topics)}, {kC2, sub(all)}, {kC3, sub(c3_topics)}};
    auto a = assign(counts, subs);
    const TPs r1_1 = a[kC1], r1_2 = a[kC2], r1_3 = a[kC3];
    EXPECT_TRUE(r1_1.size() == 4 && r1_2.size() == 4 && r1_3.size() == 4);

    subs.erase(kC1);
    subs.erase(kC3);
    subs[kC2] = v2(all, r1_2, 1);
    a = assign(counts, subs);
    EXPECT_EQ(a[kC2].size(), 12u);
    for (const auto& p : r1_2) EXPECT_TRUE(as_set(a[kC2]).count(p));

    subs[kC1] = v2(c1_topics, r1_1, 1);
    subs[kC2] = v2(all, a[kC2], 2);
    subs[kC3] = v2(c3_topics, r1_3, 1);
    a = assign(counts, subs);
    EXPECT_TRUE(a[kC1].size() == 4 && a[kC2].size() == 4 && a[kC3].size() == 4);
    verify(subs, a, counts);
  }
}

TEST_P(StickyOnly, AssignmentWithConflictingPreviousGenerations) {
  for (bool all_equal : {true, false}) {
    SCOPED_TRACE(all_equal ? "equal subscriptions" : "different subscriptions");
    const std::vector<std::string> all{kTopic, kT2, kT3};
    const PartitionCounts counts{{kTopic, 4}, {kT2, 4}, {kT3, 4}};
    const TPs c1_0 = all_equal ? TPs{tp(kTopic, 0), tp(kTopic, 1), tp(kTopic, 2), tp(kT2, 2), tp(kT2, 3), tp(kT3, 0)}
                               : TPs{tp(kTopic, 0), tp(kTopic, 1), tp(kTopic, 2), tp(kTopic, 3)};
    const TPs c2_0{tp(kTopic, 0), tp(kTopic, 1), tp(kT2, 0), tp(kT2, 1), tp(kT2, 2), tp(kT2, 3)};
    const TPs c3_0{tp(kTopic, 2), tp(kTopic, 3), tp(kT3, 0), tp(kT3, 1), tp(kT3, 2), tp(kT3, 3)};
    MemberSubscriptions subs{{kC1, v2(all_equal ? all : std::vector<std::string>{kTopic}, c1_0, 1)},
                             {kC2, v2(all_equal ? all : std::vector<std::string>{kTopic, kT2}, c2_0, 2)},
                             {kC3, v2(all, c3_0, 2)}};
    auto a = assign(counts, subs);
    EXPECT_TRUE(a[kC1].size() == 4 && a[kC2].size() == 4 && a[kC3].size() == 4);
    for (const auto& p : a[kC2]) EXPECT_TRUE(as_set(c2_0).count(p));
    for (const auto& p : a[kC3]) EXPECT_TRUE(as_set(c3_0).count(p));
    verify(subs, a, counts);
  }
}

TEST_P(StickyOnly, SchemaBackwardCompatibility) {
  MemberSubscriptions subs{{kC1, v2({kTopic}, {tp(kTopic, 0), tp(kTopic, 2)}, 1)}, {kC3, sub({kTopic})}};
  Subscription old_schema = sub({kTopic});
  old_schema.user_data = encode_sticky_user_data(MemberData{{tp(kTopic, 1)}, std::nullopt});  // v0, no generation
  subs[kC2] = old_schema;
  auto a = assign({{kTopic, 3}}, subs);
  EXPECT_TRUE(a[kC1].size() == 1 && a[kC2].size() == 1 && a[kC3].size() == 1);
  EXPECT_TRUE(as_set({tp(kTopic, 0), tp(kTopic, 2)}).count(a[kC1][0]));
  EXPECT_EQ(a[kC2], (TPs{tp(kTopic, 1)}));
  verify(subs, a, {{kTopic, 3}});
}

TEST_P(StickyOnly, AssignorWithOldVersionSubscriptions) {
  MemberSubscriptions subs{{kC1, sticky_v0({kT1}, {tp(kT1, 0)}, kGeneration)},
                           {kC2, sticky_v1({kT1}, {tp(kT1, 1)}, kGeneration)},
                           {kC3, v2({kT1}, {}, kGeneration)}};
  auto a = assign({{kT1, 3}}, subs);
  EXPECT_EQ(a[kC1], (TPs{tp(kT1, 0)}));
  EXPECT_EQ(a[kC2], (TPs{tp(kT1, 1)}));
  EXPECT_EQ(a[kC3], (TPs{tp(kT1, 2)}));
  verify(subs, a, {{kT1, 3}});
}

TEST(CooperativeStickyAssignor, NameProtocolsAndGenerationUserData) {
  CooperativeStickyAssignor a;
  EXPECT_EQ(a.name(), "cooperative-sticky");
  EXPECT_EQ(a.supported_protocols(),
            (std::vector<RebalanceProtocol>{RebalanceProtocol::kCooperative, RebalanceProtocol::kEager}));
  // testEncodeAndDecodeGeneration / testDecodeGeneration
  Subscription s = sub({kTopic});
  s.user_data = a.subscription_user_data({kTopic});
  EXPECT_EQ(a.member_data(s).generation, kDefaultGeneration);
  a.on_assignment(Assignment{}, 10);
  s.user_data = a.subscription_user_data({kTopic});
  EXPECT_EQ(a.member_data(s).generation, 10);
  EXPECT_FALSE(a.member_data(sub({kTopic})).generation.has_value());
}

TEST(CooperativeStickyAssignor, MemberDataPrefersTheSubscription) {
  CooperativeStickyAssignor a;
  // testMemberDataWithInconsistentData: user data has the generation, the
  // subscription (no generation) the owned partitions.
  a.on_assignment(Assignment{{tp(kTopic, 1)}, std::nullopt}, kGeneration);
  Subscription s = sub({kTopic});
  s.user_data = a.subscription_user_data({kTopic});
  s.owned_partitions = {tp(kTopic, 0)};
  EXPECT_EQ(a.member_data(s), (MemberData{{tp(kTopic, 0)}, kGeneration}));
  // testMemberDataWithEmptyPartitions{Equal,Higher}Generation.
  for (int32_t in_user_data : {kGeneration, kGeneration - 1}) {
    a.on_assignment(Assignment{{tp(kT1, 0), tp(kT2, 1)}, std::nullopt}, in_user_data);
    Subscription t = sub({kTopic});
    t.user_data = a.subscription_user_data({kTopic});
    t.generation_id = kGeneration;
    EXPECT_EQ(a.member_data(t), (MemberData{{}, kGeneration}));
  }
}

TEST_P(CooperativeOnly, PartitionClaimedTwiceInSameGenerationWaitsForRevocation) {
  MemberSubscriptions subs{{kC1, v2({kTopic}, {tp(kTopic, 0), tp(kTopic, 1)}, kGeneration)},
                           {kC2, v2({kTopic}, {tp(kTopic, 0), tp(kTopic, 2)}, kGeneration)},
                           {kC3, v2({kTopic}, {}, kGeneration)}};
  for (int32_t partitions : {3, 4}) {
    auto a = assign({{kTopic, partitions}}, subs);
    EXPECT_EQ(a[kC1], (partitions == 3 ? TPs{tp(kTopic, 1)} : TPs{tp(kTopic, 1), tp(kTopic, 3)}));
    EXPECT_EQ(a[kC2], (TPs{tp(kTopic, 2)}));
    // topic-0 is still owned (twice): nobody gets it until both revoke it.
    EXPECT_TRUE(a[kC3].empty());
    MemberSubscriptions next = subs;
    verify(next, a, {{kTopic, partitions}});
  }
}

TEST_P(CooperativeOnly, AssignorWithOldVersionSubscriptions) {
  // v1: owned partitions in the subscription, the generation in user data.
  auto v1 = [&](TPs partitions) {
    assignor_->on_assignment(Assignment{partitions, std::nullopt}, kGeneration);
    Subscription s = sub({kT1});
    s.user_data = assignor_->subscription_user_data({kT1});
    s.owned_partitions = std::move(partitions);
    return s;
  };
  MemberSubscriptions subs{{kC1, v1({tp(kT1, 0)})}, {kC2, v1({tp(kT1, 1)})}, {kC3, v2({kT1}, {}, kGeneration)}};
  auto a = assign({{kT1, 3}}, subs);
  EXPECT_EQ(a[kC1], (TPs{tp(kT1, 0)}));
  EXPECT_EQ(a[kC2], (TPs{tp(kT1, 1)}));
  EXPECT_EQ(a[kC3], (TPs{tp(kT1, 2)}));
}

TEST_P(CooperativeOnly, MovingPartitionIsAbsentFromTheFirstRound) {
  // One member owns all three; a second joins. The partition it will get is
  // first only revoked (in nobody's assignment), then assigned next round.
  const PartitionCounts counts{{kTopic, 3}};
  MemberSubscriptions subs{{kC1, v2({kTopic}, {tp(kTopic, 0), tp(kTopic, 1), tp(kTopic, 2)}, kGeneration)},
                           {kC2, v2({kTopic}, {}, kGeneration)}};
  auto first = assign(counts, subs);
  EXPECT_EQ(first[kC1], (TPs{tp(kTopic, 0), tp(kTopic, 1)}));
  EXPECT_TRUE(first[kC2].empty());
  subs[kC1] = v2({kTopic}, first[kC1], kGeneration + 1);
  subs[kC2] = v2({kTopic}, first[kC2], kGeneration + 1);
  auto second = assign(counts, subs);
  EXPECT_EQ(second[kC1], (TPs{tp(kTopic, 0), tp(kTopic, 1)}));
  EXPECT_EQ(second[kC2], (TPs{tp(kTopic, 2)}));

  // The same through the general algorithm (different subscriptions).
  const PartitionCounts two{{kTopic, 4}, {kT2, 1}};
  subs = {{kC1, v2({kTopic, kT2}, {tp(kTopic, 0), tp(kTopic, 1), tp(kTopic, 2), tp(kTopic, 3), tp(kT2, 0)}, 1)},
          {kC2, v2({kTopic}, {}, 1)}};
  auto general = assign(two, subs);
  EXPECT_FALSE(assignor_->partitions_transferring_ownership().has_value());
  EXPECT_TRUE(general[kC2].empty());
  EXPECT_EQ(general[kC1].size(), 3u);  // two of topic's partitions are being revoked
  verify(subs, general, two);
}

INSTANTIATE_TEST_SUITE_P(Sticky, StickyOnly, ::testing::Values("sticky"));
INSTANTIATE_TEST_SUITE_P(CooperativeSticky, CooperativeOnly, ::testing::Values("cooperative-sticky"));

}  // namespace
}  // namespace spool::client
