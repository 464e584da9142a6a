#include "cli/topic_format.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace spool::cli {
namespace {

std::vector<TopicInfo> sample() {
  TopicInfo a{"orders", false, 0, {{1, 0, 3, {0}, {0}, {}, 0}, {0, 0, 3, {0}, {0}, {}, 0}}, true, {{"retention.ms", "1000"}}};
  TopicInfo b{"audit", false, 0, {{0, -1, -1, {0}, {}, {0}, 5}}, false, {}};
  return {a, b};
}

TEST(TopicFormat, ErrorNames) {
  EXPECT_EQ(kafka_error_name(36), "TOPIC_ALREADY_EXISTS");
  EXPECT_EQ(kafka_error_name(3), "UNKNOWN_TOPIC_OR_PARTITION");
}

TEST(TopicFormat, TableAligns) {
  std::string t = format_table({{"A", "BB"}, {"xxx", "y"}});
  EXPECT_EQ(t, "A    BB\nxxx  y\n");
}

TEST(TopicFormat, ListSortsNames) {
  EXPECT_EQ(format_topic_list(sample(), OutputFormat::kTable), "audit\norders\n");
  auto j = nlohmann::json::parse(format_topic_list(sample(), OutputFormat::kJson));
  EXPECT_EQ(j, nlohmann::json({"audit", "orders"}));
}

TEST(TopicFormat, DescribeTable) {
  auto topics = sample();
  std::sort(topics[0].partitions.begin(), topics[0].partitions.end(),
            [](auto& x, auto& y) { return x.partition < y.partition; });
  std::string s = format_topic_describe(topics, OutputFormat::kTable);
  EXPECT_NE(s.find("Topic: orders  Partitions: 2  ReplicationFactor: 1  Configs: retention.ms=1000\n"), std::string::npos) << s;
  EXPECT_NE(s.find("Topic: audit  Partitions: 1  ReplicationFactor: 1\n"), std::string::npos) << s;
  EXPECT_NE(s.find("PARTITION  LEADER  EPOCH  REPLICAS  ISR  OFFLINE  ERROR"), std::string::npos) << s;
  EXPECT_NE(s.find("LEADER_NOT_AVAILABLE"), std::string::npos) << s;
  EXPECT_NE(s.find("none"), std::string::npos) << s;
}

TEST(TopicFormat, DescribeJson) {
  auto j = nlohmann::json::parse(format_topic_describe(sample(), OutputFormat::kJson));
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["name"], "orders");
  EXPECT_EQ(j[0]["partition_count"], 2);
  EXPECT_EQ(j[0]["replication_factor"], 1);
  EXPECT_EQ(j[0]["partitions"][0]["isr"], nlohmann::json({0}));
  EXPECT_EQ(j[1]["partitions"][0]["error"], "LEADER_NOT_AVAILABLE");
  EXPECT_EQ(j[0]["configs"]["retention.ms"], "1000");
  EXPECT_FALSE(j[1].contains("configs"));
}

TEST(TopicFormat, OpResults) {
  std::string ok = format_topic_op("created", {{"t", 0, "", 3, 1}}, OutputFormat::kTable);
  EXPECT_EQ(ok, "created topic 't' (3 partitions, replication factor 1)\n");
  std::string bad = format_topic_op("created", {{"t", 36, "Topic 't' already exists.", -1, -1}}, OutputFormat::kTable);
  EXPECT_EQ(bad, "error: topic 't': TOPIC_ALREADY_EXISTS: Topic 't' already exists.\n");
  auto j = nlohmann::json::parse(format_topic_op("deleted", {{"t", 3, "", -1, -1}}, OutputFormat::kJson));
  EXPECT_EQ(j[0]["ok"], false);
  EXPECT_EQ(j[0]["error"], "UNKNOWN_TOPIC_OR_PARTITION");
}

TEST(TopicFormat, DeleteRecordsResults) {
  std::string table = format_delete_records({{"t", 0, 0, 42}, {"t", 3, 3, -1}}, OutputFormat::kTable);
  EXPECT_EQ(table,
            "topic 't' partition 0: log start offset is now 42\n"
            "error: topic 't' partition 3: UNKNOWN_TOPIC_OR_PARTITION\n");
  auto j = nlohmann::json::parse(format_delete_records({{"t", 1, 0, 7}, {"t", 2, 1, -1}}, OutputFormat::kJson));
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["low_watermark"], 7);
  EXPECT_EQ(j[0]["ok"], true);
  EXPECT_EQ(j[1]["error"], "OFFSET_OUT_OF_RANGE");
  EXPECT_FALSE(j[1].contains("low_watermark"));
}

TEST(TopicFormat, ConfigPairs) {
  auto r = parse_config_pairs({"retention.ms=1000", "x=a=b", "empty="});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ((*r)["retention.ms"], "1000");
  EXPECT_EQ((*r)["x"], "a=b");
  EXPECT_EQ((*r)["empty"], "");
  EXPECT_FALSE(parse_config_pairs({"novalue"}).is_ok());
  EXPECT_FALSE(parse_config_pairs({"=v"}).is_ok());
  EXPECT_FALSE(parse_config_pairs({"a=1", "a=2"}).is_ok());
}

}  // namespace
}  // namespace spool::cli
