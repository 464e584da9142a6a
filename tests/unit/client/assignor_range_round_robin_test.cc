// RangeAssignor and RoundRobinAssignor on the scenarios of Kafka's
// RangeAssignorTest and RoundRobinAssignorTest (non-rack cases), with their
// expected assignments.
#include <gtest/gtest.h>

#include "assignor_test_support.h"
#include "client/consumer/range_assignor.h"
#include "client/consumer/round_robin_assignor.h"

namespace spool::client {
namespace {

using testing::as_set;
using testing::static_sub;
using testing::sub;
using testing::tp;
using TPs = std::vector<TopicPartition>;

const std::string kT1 = "topic1", kT2 = "topic2";

MemberPartitions run(PartitionAssignor& a, const PartitionCounts& counts, const MemberSubscriptions& subs) {
  Result<MemberAssignments> r = a.assign(counts, subs);
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  MemberPartitions out;
  for (auto& [member, assignment] : *r) {
    EXPECT_FALSE(assignment.user_data.has_value());
    out[member] = assignment.partitions;
  }
  return out;
}

// Keyed by group.instance.id (Kafka's checkStaticAssignment).
std::map<std::string, TPs> by_instance(const MemberPartitions& a, const MemberSubscriptions& subs) {
  std::map<std::string, TPs> out;
  for (const auto& [member, s] : subs) {
    if (s.group_instance_id) out[*s.group_instance_id] = a.at(member);
  }
  return out;
}

TEST(RangeAssignor, NameAndProtocol) {
  RangeAssignor a;
  EXPECT_EQ(a.name(), "range");
  EXPECT_EQ(a.supported_protocols(), std::vector<RebalanceProtocol>{RebalanceProtocol::kEager});
  EXPECT_FALSE(a.subscription_user_data({"t"}).has_value());
}

TEST(RangeAssignor, OneConsumerNoTopicOrNonexistentTopic) {
  RangeAssignor a;
  EXPECT_EQ(run(a, {}, {{"consumer1", sub({})}}), (MemberPartitions{{"consumer1", {}}}));
  EXPECT_EQ(run(a, {}, {{"consumer1", sub({kT1})}}), (MemberPartitions{{"consumer1", {}}}));
}

TEST(RangeAssignor, OneConsumerOneTopicAndOnlySubscribedTopics) {
  RangeAssignor a;
  EXPECT_EQ(run(a, {{kT1, 3}, {"other", 3}}, {{"consumer1", sub({kT1})}})["consumer1"],
            (TPs{tp(kT1, 0), tp(kT1, 1), tp(kT1, 2)}));
}

TEST(RangeAssignor, OneConsumerMultipleTopics) {
  RangeAssignor a;
  EXPECT_EQ(as_set(run(a, {{kT1, 1}, {kT2, 2}}, {{"consumer1", sub({kT1, kT2})}})["consumer1"]),
            as_set({tp(kT1, 0), tp(kT2, 0), tp(kT2, 1)}));
}

TEST(RangeAssignor, TwoConsumersOneTopic) {
  RangeAssignor a;
  MemberSubscriptions subs{{"consumer1", sub({kT1})}, {"consumer2", sub({kT1})}};
  auto one = run(a, {{kT1, 1}}, subs);
  EXPECT_EQ(one["consumer1"], (TPs{tp(kT1, 0)}));
  EXPECT_EQ(one["consumer2"], TPs{});
  auto two = run(a, {{kT1, 2}}, subs);
  EXPECT_EQ(two["consumer1"], (TPs{tp(kT1, 0)}));
  EXPECT_EQ(two["consumer2"], (TPs{tp(kT1, 1)}));
}

TEST(RangeAssignor, MultipleConsumersMixedTopics) {
  RangeAssignor a;
  auto r = run(a, {{kT1, 3}, {kT2, 2}},
               {{"consumer1", sub({kT1})}, {"consumer2", sub({kT1, kT2})}, {"consumer3", sub({kT1})}});
  EXPECT_EQ(as_set(r["consumer1"]), as_set({tp(kT1, 0)}));
  EXPECT_EQ(as_set(r["consumer2"]), as_set({tp(kT1, 1), tp(kT2, 0), tp(kT2, 1)}));
  EXPECT_EQ(as_set(r["consumer3"]), as_set({tp(kT1, 2)}));
}

TEST(RangeAssignor, TwoConsumersTwoTopicsSixPartitions) {
  RangeAssignor a;
  auto r = run(a, {{kT1, 3}, {kT2, 3}}, {{"consumer1", sub({kT1, kT2})}, {"consumer2", sub({kT1, kT2})}});
  EXPECT_EQ(r["consumer1"], (TPs{tp(kT1, 0), tp(kT1, 1), tp(kT2, 0), tp(kT2, 1)}));
  EXPECT_EQ(r["consumer2"], (TPs{tp(kT1, 2), tp(kT2, 2)}));
}

TEST(RangeAssignor, StaticMembersOrderByInstanceId) {
  RangeAssignor a;
  // consumer-a sorts first by member id, but instance ids decide.
  auto r = run(a, {{kT1, 3}, {kT2, 3}},
               {{"consumer-b", static_sub({kT1, kT2}, "instance1")}, {"consumer-a", static_sub({kT1, kT2}, "instance2")}});
  EXPECT_EQ(as_set(r["consumer-b"]), as_set({tp(kT1, 0), tp(kT1, 1), tp(kT2, 0), tp(kT2, 1)}));
  EXPECT_EQ(as_set(r["consumer-a"]), as_set({tp(kT1, 2), tp(kT2, 2)}));
  // A static member comes before a dynamic one.
  r = run(a, {{kT1, 3}, {kT2, 3}}, {{"consumer-b", static_sub({kT1, kT2}, "instance1")}, {"consumer-a", sub({kT1, kT2})}});
  EXPECT_EQ(as_set(r["consumer-b"]), as_set({tp(kT1, 0), tp(kT1, 1), tp(kT2, 0), tp(kT2, 1)}));
  EXPECT_EQ(as_set(r["consumer-a"]), as_set({tp(kT1, 2), tp(kT2, 2)}));
}

TEST(RangeAssignor, StaticMemberRangeAssignmentPersistent) {
  RangeAssignor a;
  MemberSubscriptions subs{{"consumer1", static_sub({kT1, kT2}, "instance1")},
                           {"consumer2", static_sub({kT1, kT2}, "instance2")},
                           {"consumer3", static_sub({kT1, kT2}, "instance3")},
                           {"consumer4", sub({kT1, kT2})}};
  MemberPartitions expected{{"consumer1", {tp(kT1, 0), tp(kT1, 1), tp(kT2, 0)}},
                            {"consumer2", {tp(kT1, 2), tp(kT2, 1)}},
                            {"consumer3", {tp(kT1, 3), tp(kT2, 2)}},
                            {"consumer4", {tp(kT1, 4), tp(kT2, 3)}}};
  EXPECT_EQ(run(a, {{kT1, 5}, {kT2, 4}}, subs), expected);
  // Replace dynamic member 4 with a new dynamic member 5.
  subs.erase("consumer4");
  subs["consumer5"] = sub({kT1, kT2});
  expected.erase("consumer4");
  expected["consumer5"] = {tp(kT1, 4), tp(kT2, 3)};
  EXPECT_EQ(run(a, {{kT1, 5}, {kT2, 4}}, subs), expected);
}

TEST(RangeAssignor, StaticMemberRangeAssignmentPersistentAfterMemberIdChanges) {
  RangeAssignor a;
  MemberSubscriptions subs{{"consumer1", static_sub({kT1, kT2}, "instance1")},
                           {"consumer2", static_sub({kT1, kT2}, "instance2")},
                           {"consumer3", static_sub({kT1, kT2}, "instance3")}};
  std::map<std::string, TPs> expected{{"instance1", {tp(kT1, 0), tp(kT1, 1), tp(kT2, 0), tp(kT2, 1)}},
                                      {"instance2", {tp(kT1, 2), tp(kT1, 3), tp(kT2, 2), tp(kT2, 3)}},
                                      {"instance3", {tp(kT1, 4), tp(kT2, 4)}}};
  const PartitionCounts counts{{kT1, 5}, {kT2, 5}};
  EXPECT_EQ(by_instance(run(a, counts, subs), subs), expected);
  // Switch the member ids: the assignment per instance stays.
  subs["consumer4"] = subs["consumer3"];
  subs.erase("consumer3");
  subs["consumer5"] = subs["consumer2"];
  subs.erase("consumer2");
  EXPECT_EQ(by_instance(run(a, counts, subs), subs), expected);
}

TEST(RangeAssignor, CoPartitionedTopicsGoTogether) {
  // Kafka's non-rack expectation for 3 topics of 5 partitions and 3 members.
  RangeAssignor a;
  const std::vector<std::string> all{"t1", "t2", "t3"};
  auto r = run(a, {{"t1", 5}, {"t2", 5}, {"t3", 5}}, {{"c0", sub(all)}, {"c1", sub(all)}, {"c2", sub(all)}});
  EXPECT_EQ(r["c0"], (TPs{tp("t1", 0), tp("t1", 1), tp("t2", 0), tp("t2", 1), tp("t3", 0), tp("t3", 1)}));
  EXPECT_EQ(r["c1"], (TPs{tp("t1", 2), tp("t1", 3), tp("t2", 2), tp("t2", 3), tp("t3", 2), tp("t3", 3)}));
  EXPECT_EQ(r["c2"], (TPs{tp("t1", 4), tp("t2", 4), tp("t3", 4)}));
  // With a member subscribed to fewer topics (RangeAssignorTest's
  // NonEqualSubscription, non-rack result).
  r = run(a, {{"t1", 6}, {"t2", 7}, {"t3", 2}}, {{"c0", sub(all)}, {"c1", sub(all)}, {"c2", sub({"t1", "t3"})}});
  EXPECT_EQ(r["c0"], (TPs{tp("t1", 0), tp("t1", 1), tp("t2", 0), tp("t2", 1), tp("t2", 2), tp("t2", 3), tp("t3", 0)}));
  EXPECT_EQ(r["c1"], (TPs{tp("t1", 2), tp("t1", 3), tp("t2", 4), tp("t2", 5), tp("t2", 6), tp("t3", 1)}));
  EXPECT_EQ(r["c2"], (TPs{tp("t1", 4), tp("t1", 5)}));
}

TEST(RoundRobinAssignor, NameAndEdgeCases) {
  RoundRobinAssignor a;
  EXPECT_EQ(a.name(), "roundrobin");
  EXPECT_EQ(run(a, {}, {{"consumer", sub({})}}), (MemberPartitions{{"consumer", {}}}));
  EXPECT_EQ(run(a, {}, {{"consumer", sub({"topic"})}}), (MemberPartitions{{"consumer", {}}}));
  EXPECT_EQ(run(a, {{"topic", 3}, {"other", 3}}, {{"consumer", sub({"topic"})}})["consumer"],
            (TPs{tp("topic", 0), tp("topic", 1), tp("topic", 2)}));
  EXPECT_EQ(run(a, {{kT1, 1}, {kT2, 2}}, {{"consumer", sub({kT1, kT2})}})["consumer"],
            (TPs{tp(kT1, 0), tp(kT2, 0), tp(kT2, 1)}));
}

TEST(RoundRobinAssignor, TwoConsumersOneTopic) {
  RoundRobinAssignor a;
  MemberSubscriptions subs{{"consumer1", sub({"topic"})}, {"consumer2", sub({"topic"})}};
  EXPECT_EQ(run(a, {{"topic", 1}}, subs), (MemberPartitions{{"consumer1", {tp("topic", 0)}}, {"consumer2", {}}}));
  EXPECT_EQ(run(a, {{"topic", 2}}, subs),
            (MemberPartitions{{"consumer1", {tp("topic", 0)}}, {"consumer2", {tp("topic", 1)}}}));
}

TEST(RoundRobinAssignor, MultipleConsumersMixedTopics) {
  RoundRobinAssignor a;
  auto r = run(a, {{kT1, 3}, {kT2, 2}},
               {{"consumer1", sub({kT1})}, {"consumer2", sub({kT1, kT2})}, {"consumer3", sub({kT1})}});
  EXPECT_EQ(r["consumer1"], (TPs{tp(kT1, 0)}));
  EXPECT_EQ(r["consumer2"], (TPs{tp(kT1, 1), tp(kT2, 0), tp(kT2, 1)}));
  EXPECT_EQ(r["consumer3"], (TPs{tp(kT1, 2)}));
}

TEST(RoundRobinAssignor, TwoConsumersTwoTopicsSixPartitions) {
  RoundRobinAssignor a;
  const PartitionCounts counts{{kT1, 3}, {kT2, 3}};
  auto r = run(a, counts, {{"consumer1", sub({kT1, kT2})}, {"consumer2", sub({kT1, kT2})}});
  EXPECT_EQ(r["consumer1"], (TPs{tp(kT1, 0), tp(kT1, 2), tp(kT2, 1)}));
  EXPECT_EQ(r["consumer2"], (TPs{tp(kT1, 1), tp(kT2, 0), tp(kT2, 2)}));
  // Static members order by instance id; static before dynamic.
  r = run(a, counts,
          {{"consumer-b", static_sub({kT1, kT2}, "instance1")}, {"consumer-a", static_sub({kT1, kT2}, "instance2")}});
  EXPECT_EQ(r["consumer-b"], (TPs{tp(kT1, 0), tp(kT1, 2), tp(kT2, 1)}));
  EXPECT_EQ(r["consumer-a"], (TPs{tp(kT1, 1), tp(kT2, 0), tp(kT2, 2)}));
  r = run(a, counts, {{"consumer-b", static_sub({kT1, kT2}, "instance1")}, {"consumer-a", sub({kT1, kT2})}});
  EXPECT_EQ(r["consumer-b"], (TPs{tp(kT1, 0), tp(kT1, 2), tp(kT2, 1)}));
  EXPECT_EQ(r["consumer-a"], (TPs{tp(kT1, 1), tp(kT2, 0), tp(kT2, 2)}));
}

TEST(RoundRobinAssignor, StaticMemberRoundRobinAssignmentPersistent) {
  RoundRobinAssignor a;
  MemberSubscriptions subs{{"consumer1", static_sub({kT1, kT2}, "instance1")},
                           {"consumer2", static_sub({kT1, kT2}, "instance2")},
                           {"consumer3", static_sub({kT1, kT2}, "instance3")},
                           {"consumer4", sub({kT1, kT2})}};
  MemberPartitions expected{{"consumer1", {tp(kT1, 0), tp(kT2, 1)}},
                            {"consumer2", {tp(kT1, 1), tp(kT2, 2)}},
                            {"consumer3", {tp(kT1, 2)}},
                            {"consumer4", {tp(kT2, 0)}}};
  EXPECT_EQ(run(a, {{kT1, 3}, {kT2, 3}}, subs), expected);
  subs.erase("consumer4");
  subs["consumer5"] = sub({kT1, kT2});
  expected.erase("consumer4");
  expected["consumer5"] = {tp(kT2, 0)};
  EXPECT_EQ(run(a, {{kT1, 3}, {kT2, 3}}, subs), expected);
}

TEST(RoundRobinAssignor, StaticMemberRoundRobinAssignmentPersistentAfterMemberIdChanges) {
  RoundRobinAssignor a;
  MemberSubscriptions subs{{"consumer1", static_sub({kT1, kT2}, "instance1")},
                           {"consumer2", static_sub({kT1, kT2}, "instance2")},
                           {"consumer3", static_sub({kT1, kT2}, "instance3")}};
  std::map<std::string, TPs> expected{{"instance1", {tp(kT1, 0), tp(kT1, 3), tp(kT2, 1), tp(kT2, 4)}},
                                      {"instance2", {tp(kT1, 1), tp(kT1, 4), tp(kT2, 2)}},
                                      {"instance3", {tp(kT1, 2), tp(kT2, 0), tp(kT2, 3)}}};
  const PartitionCounts counts{{kT1, 5}, {kT2, 5}};
  EXPECT_EQ(by_instance(run(a, counts, subs), subs), expected);
  subs["consumer4"] = subs["consumer3"];
  subs.erase("consumer3");
  subs["consumer5"] = subs["consumer2"];
  subs.erase("consumer2");
  EXPECT_EQ(by_instance(run(a, counts, subs), subs), expected);
}

}  // namespace
}  // namespace spool::client
