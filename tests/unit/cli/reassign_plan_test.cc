// `spool topic reassign`'s files and plan computations (reassign_plan.h):
// Kafka's JSON forms both ways, their validation, a balanced proposal, and
// the throttled-replica lists of a move.
#include "cli/reassign_plan.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace spool::cli {
namespace {

ClusterInfo cluster() {
  ClusterInfo c;
  c.controller_id = 0;
  for (int32_t id : {0, 1, 2, 3}) c.brokers.push_back(BrokerInfo{id, "127.0.0.1", 9092 + id, std::nullopt});
  TopicInfo t;
  t.name = "foo";
  for (int32_t p = 0; p < 4; ++p) {
    PartitionInfo pi;
    pi.partition = p;
    pi.leader = p % 3;
    pi.replicas = {p % 3, (p + 1) % 3};
    pi.isr = pi.replicas;
    t.partitions.push_back(pi);
  }
  c.topics.push_back(t);
  return c;
}

TEST(ReassignPlan, ParsesAndFormatsKafkasFiles) {
  auto topics = parse_topics_to_move(R"({"topics":[{"topic":"foo"},{"topic":"bar"}],"version":1})");
  ASSERT_TRUE(topics) << topics.status().message();
  EXPECT_EQ(*topics, (std::vector<std::string>{"foo", "bar"}));
  const std::string text =
      R"({"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[2,3],"log_dirs":["any","any"]},)"
      R"({"topic":"foo","partition":0,"replicas":[3,1]}]})";
  auto plan = parse_reassignment(text);
  ASSERT_TRUE(plan) << plan.status().message();
  ASSERT_EQ(plan->size(), 2u);
  EXPECT_EQ((*plan)[0], (PlanPartition{"foo", 0, {3, 1}}));  // sorted
  EXPECT_EQ(format_reassignment(*plan),
            R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[3,1],"log_dirs":["any","any"]},)"
            R"({"topic":"foo","partition":1,"replicas":[2,3],"log_dirs":["any","any"]}]})");
  auto again = parse_reassignment(format_reassignment(*plan));
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *plan);
}

TEST(ReassignPlan, RefusesBadFiles) {
  for (const char* bad : {"", "[]", R"({"topics":[]})", R"({"topics":[{"name":"x"}]})",
                          R"({"topics":[{"topic":"a"},{"topic":"a"}]})"})
    EXPECT_FALSE(parse_topics_to_move(bad)) << bad;
  for (const char* bad : {R"({"partitions":[]})", R"({"partitions":[{"topic":"t","partition":0,"replicas":[]}]})",
                          R"({"partitions":[{"topic":"t","partition":0,"replicas":[1,1]}]})",
                          R"({"partitions":[{"topic":"t","partition":-1,"replicas":[1]}]})",
                          R"({"partitions":[{"topic":"t","partition":0,"replicas":[-2]}]})",
                          R"({"partitions":[{"topic":"t","partition":0,"replicas":[1],"log_dirs":["/d"]}]})",
                          R"({"partitions":[{"topic":"t","partition":0,"replicas":[1]},)"
                          R"({"topic":"t","partition":0,"replicas":[2]}]})"})
    EXPECT_FALSE(parse_reassignment(bad)) << bad;
}

TEST(ReassignPlan, GeneratesABalancedPlanOnTheGivenBrokers) {
  const ClusterInfo c = cluster();
  auto plan = generate_plan(c, {"foo"}, {1, 2, 3}, true, 42);
  ASSERT_TRUE(plan) << plan.status().message();
  ASSERT_EQ(plan->size(), 4u);
  std::map<int32_t, int> leaders;
  for (const auto& p : *plan) {
    EXPECT_EQ(p.replicas.size(), 2u);  // the replication factor is kept
    EXPECT_EQ(std::set<int32_t>(p.replicas.begin(), p.replicas.end()).size(), 2u);
    for (int32_t r : p.replicas) EXPECT_TRUE(r >= 1 && r <= 3) << r;
    ++leaders[p.replicas[0]];
  }
  for (const auto& [b, n] : leaders) EXPECT_LE(n, 2) << "broker " << b;
  EXPECT_FALSE(generate_plan(c, {"foo"}, {1, 9}, true, 1));  // 9 is not live
  EXPECT_FALSE(generate_plan(c, {"nope"}, {1, 2}, true, 1));
  EXPECT_FALSE(generate_plan(c, {"foo"}, {1}, true, 1));     // RF 2 on one broker
}

TEST(ReassignPlan, ThrottlesCoverTheOldAndNewReplicasOfMovingPartitions) {
  auto current = current_assignment(cluster(), {"foo"});
  ASSERT_TRUE(current);
  Plan target = *current;
  target[0].replicas = {3, 0};  // foo-0: [0,1] -> [3,0]
  target[2].replicas = {1, 3};  // foo-2: [2,0] -> [1,3]
  Throttles th = plan_throttles(*current, target);
  EXPECT_EQ(th.leader, (std::map<std::string, std::string>{{"foo", "0:0,0:1,2:2,2:0"}}));
  EXPECT_EQ(th.follower, (std::map<std::string, std::string>{{"foo", "0:3,2:1,2:3"}}));
  EXPECT_EQ(th.brokers, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_TRUE(plan_throttles(*current, *current).leader.empty());
}

}  // namespace
}  // namespace spool::cli
