// `spool cluster describe`: argument parsing and the exact table and JSON
// output, including which partitions count as under-replicated and offline.
#include "cli/cluster_format.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace spool::cli {
namespace {

ClusterInfo sample() {
  ClusterInfo c;
  c.cluster_id = "abcDEF123";
  c.controller_id = 2;
  c.brokers = {{1, "127.0.0.1", 9092, std::nullopt}, {2, "127.0.0.1", 9093, "r2"}, {3, "127.0.0.1", 9094, std::nullopt}};
  TopicInfo t;
  t.name = "orders";
  t.partitions = {
      PartitionInfo{0, 1, 4, {1, 2, 3}, {1, 2, 3}, {}, 0},  // healthy
      PartitionInfo{1, 2, 5, {2, 3, 1}, {2, 1}, {3}, 0},    // under-replicated
      PartitionInfo{2, -1, 6, {3}, {3}, {3}, 5},            // offline (and not under-replicated: ISR == replicas)
  };
  c.topics = {t};
  return c;
}

TEST(ClusterFormat, ProblemSelection) {
  auto c = sample();
  auto under = under_replicated(c);
  ASSERT_EQ(under.size(), 1u);
  EXPECT_EQ(under[0].topic, "orders");
  EXPECT_EQ(under[0].partition.partition, 1);
  auto down = offline(c);
  ASSERT_EQ(down.size(), 1u);
  EXPECT_EQ(down[0].partition.partition, 2);
}

TEST(ClusterFormat, Table) {
  EXPECT_EQ(format_cluster_describe(sample(), OutputFormat::kTable),
            "Cluster id: abcDEF123\n"
            "Controller: 2\n"
            "Brokers: 3\n"
            "ID  HOST       PORT  RACK  ROLE\n"
            "1   127.0.0.1  9092  -     -\n"
            "2   127.0.0.1  9093  r2    controller\n"
            "3   127.0.0.1  9094  -     -\n"
            "Under-replicated partitions: 1\n"
            "TOPIC   PARTITION  LEADER  REPLICAS  ISR  OFFLINE\n"
            "orders  1          2       2,3,1     2,1  3\n"
            "Offline partitions: 1\n"
            "TOPIC   PARTITION  LEADER  REPLICAS  ISR  OFFLINE\n"
            "orders  2          -1      3         3    3\n");
}

TEST(ClusterFormat, HealthyClusterWithoutController) {
  ClusterInfo c;
  c.brokers = {{7, "h", 1, std::nullopt}};
  EXPECT_EQ(format_cluster_describe(c, OutputFormat::kTable),
            "Cluster id: -\n"
            "Controller: none\n"
            "Brokers: 1\n"
            "ID  HOST  PORT  RACK  ROLE\n"
            "7   h     1     -     -\n"
            "Under-replicated partitions: 0\n"
            "Offline partitions: 0\n");
}

TEST(ClusterFormat, Json) {
  auto j = nlohmann::json::parse(format_cluster_describe(sample(), OutputFormat::kJson));
  EXPECT_EQ(j["cluster_id"], "abcDEF123");
  EXPECT_EQ(j["controller_id"], 2);
  ASSERT_EQ(j["brokers"].size(), 3u);
  EXPECT_EQ(j["brokers"][1]["rack"], "r2");
  EXPECT_TRUE(j["brokers"][0]["rack"].is_null());
  ASSERT_EQ(j["under_replicated_partitions"].size(), 1u);
  EXPECT_EQ(j["under_replicated_partitions"][0]["isr"], nlohmann::json::array({2, 1}));
  ASSERT_EQ(j["offline_partitions"].size(), 1u);
  EXPECT_EQ(j["offline_partitions"][0]["leader"], -1);
}

TEST(ClusterArgs, DescribeParses) {
  CLI::App app{"spool"};
  CliArgs args;
  configure_app(app, args);
  std::vector<std::string> words{"cluster", "describe", "--bootstrap-server", "h:1", "-o", "json"};
  std::reverse(words.begin(), words.end());
  app.parse(words);
  EXPECT_EQ(args.command, "cluster");
  EXPECT_EQ(args.cluster.action, "describe");
  EXPECT_EQ(args.cluster.bootstrap_server, "h:1");
  EXPECT_EQ(args.cluster.output, OutputFormat::kJson);
}

}  // namespace
}  // namespace spool::cli
