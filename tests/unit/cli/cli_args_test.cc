#include "cli/cli_args.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <algorithm>

namespace spool::cli {
namespace {

// Parses argv-style words (without the program name); throws CLI::ParseError.
CliArgs parse(std::vector<std::string> words) {
  CLI::App app{"spool"};
  CliArgs args;
  configure_app(app, args);
  std::reverse(words.begin(), words.end());  // CLI11 takes the vector back to front
  app.parse(words);
  return args;
}

bool fails(std::vector<std::string> words) {
  try {
    parse(std::move(words));
  } catch (const CLI::ParseError&) {
    return true;
  }
  return false;
}

TEST(CliArgs, BrokerWithConfigAndOverrides) {
  std::string file = ::testing::TempDir() + "/cli_args_test.properties";
  { FILE* f = fopen(file.c_str(), "w"); fputs("broker.id=1\n", f); fclose(f); }
  auto a = parse({"broker", "--config", file, "--override", "num.partitions=3", "--override", "log.dirs=/d"});
  EXPECT_EQ(a.command, "broker");
  ASSERT_TRUE(a.broker.config_file.has_value());
  EXPECT_EQ(*a.broker.config_file, file);
  EXPECT_EQ(a.broker.overrides, (std::vector<std::string>{"num.partitions=3", "log.dirs=/d"}));
  a = parse({"broker", "--override", "a=1", "b=2"});
  EXPECT_EQ(a.broker.overrides, (std::vector<std::string>{"a=1", "b=2"}));
  std::remove(file.c_str());
}

TEST(CliArgs, BrokerWithoutOptions) {
  auto a = parse({"broker"});
  EXPECT_EQ(a.command, "broker");
  EXPECT_FALSE(a.broker.config_file.has_value());
  EXPECT_TRUE(a.broker.overrides.empty());
}

TEST(CliArgs, BrokerMissingConfigFileIsAUsageError) {
  EXPECT_TRUE(fails({"broker", "--config", "/nonexistent/server.properties"}));
}

TEST(CliArgs, TopicCreate) {
  auto a = parse({"topic", "create", "orders", "--partitions", "3", "--replication-factor", "1", "--config",
                  "retention.ms=1000", "--config", "cleanup.policy=compact", "--bootstrap-server", "host:9093",
                  "--output", "json"});
  EXPECT_EQ(a.command, "topic");
  EXPECT_EQ(a.topic.action, "create");
  EXPECT_EQ(a.topic.name, "orders");
  EXPECT_EQ(a.topic.partitions, 3);
  EXPECT_EQ(a.topic.replication_factor, 1);
  EXPECT_EQ(a.topic.configs, (std::vector<std::string>{"retention.ms=1000", "cleanup.policy=compact"}));
  EXPECT_EQ(a.topic.bootstrap_server, "host:9093");
  EXPECT_EQ(a.topic.output, OutputFormat::kJson);
}

TEST(CliArgs, TopicDefaults) {
  auto a = parse({"topic", "list"});
  EXPECT_EQ(a.topic.action, "list");
  EXPECT_EQ(a.topic.bootstrap_server, "127.0.0.1:9092");
  EXPECT_EQ(a.topic.output, OutputFormat::kTable);
  a = parse({"topic", "describe"});
  EXPECT_EQ(a.topic.action, "describe");
  EXPECT_EQ(a.topic.name, "");
  a = parse({"topic", "describe", "orders", "-o", "JSON"});
  EXPECT_EQ(a.topic.name, "orders");
  EXPECT_EQ(a.topic.output, OutputFormat::kJson);
  a = parse({"topic", "create", "t"});
  EXPECT_EQ(a.topic.partitions, -1);
  EXPECT_EQ(a.topic.replication_factor, -1);
  a = parse({"topic", "delete", "t"});
  EXPECT_EQ(a.topic.action, "delete");
}

TEST(CliArgs, TopicAddPartitionsAndDeleteRecords) {
  auto a = parse({"topic", "add-partitions", "orders", "--partitions", "6"});
  EXPECT_EQ(a.topic.action, "add-partitions");
  EXPECT_EQ(a.topic.name, "orders");
  EXPECT_EQ(a.topic.partitions, 6);
  a = parse({"topic", "delete-records", "orders", "--partition", "2", "--offset", "1000", "-o", "json"});
  EXPECT_EQ(a.topic.action, "delete-records");
  EXPECT_EQ(a.topic.partition, 2);
  EXPECT_EQ(a.topic.offset, 1000);
  EXPECT_EQ(a.topic.output, OutputFormat::kJson);
  a = parse({"topic", "delete-records", "orders", "--offset", "-1"});
  EXPECT_EQ(a.topic.partition, 0);
  EXPECT_EQ(a.topic.offset, -1);
  EXPECT_TRUE(fails({"topic", "add-partitions", "orders"}));
  EXPECT_TRUE(fails({"topic", "add-partitions", "--partitions", "3"}));
  EXPECT_TRUE(fails({"topic", "add-partitions", "orders", "--partitions", "0"}));
  EXPECT_TRUE(fails({"topic", "delete-records", "orders"}));
  EXPECT_TRUE(fails({"topic", "delete-records", "orders", "--offset", "-2"}));
  EXPECT_TRUE(fails({"topic", "delete-records", "orders", "--offset", "5", "--partition", "-1"}));
}

TEST(CliArgs, UsageErrors) {
  EXPECT_TRUE(fails({}));
  EXPECT_TRUE(fails({"nonsense"}));
  EXPECT_TRUE(fails({"topic"}));
  EXPECT_TRUE(fails({"topic", "create"}));
  EXPECT_TRUE(fails({"topic", "delete"}));
  EXPECT_TRUE(fails({"topic", "create", "t", "--partitions", "0"}));
  EXPECT_TRUE(fails({"topic", "create", "t", "--partitions", "x"}));
  EXPECT_TRUE(fails({"topic", "create", "t", "--replication-factor", "40000"}));
  EXPECT_TRUE(fails({"topic", "list", "--output", "xml"}));
  EXPECT_TRUE(fails({"topic", "list", "--bogus"}));
}

}  // namespace
}  // namespace spool::cli
