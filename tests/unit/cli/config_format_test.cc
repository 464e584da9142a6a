// `spool config`: kafka-configs.sh's --add-config / --delete-config syntax,
// the entity options, and the table and JSON output.
#include "cli/config_format.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace spool::cli {
namespace {

TEST(ConfigFormat, AddConfigSyntax) {
  auto r = parse_add_config("log.retention.ms=5000,log.cleanup.policy=[compact,delete], message.max.bytes = 10");
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0], (std::pair<std::string, std::string>{"log.retention.ms", "5000"}));
  EXPECT_EQ((*r)[1], (std::pair<std::string, std::string>{"log.cleanup.policy", "compact,delete"}));
  EXPECT_EQ((*r)[2], (std::pair<std::string, std::string>{"message.max.bytes", "10"}));
  EXPECT_FALSE(parse_add_config("nokey"));
  EXPECT_FALSE(parse_add_config("=5"));
  EXPECT_FALSE(parse_add_config("a=[1,2"));
  EXPECT_FALSE(parse_add_config("a=[1,2]x"));
  EXPECT_FALSE(parse_add_config("a=1,a=2"));
  auto empty_value = parse_add_config("a=");
  ASSERT_TRUE(empty_value.is_ok());
  EXPECT_EQ((*empty_value)[0].second, "");
}

TEST(ConfigFormat, DeleteConfigSyntax) {
  auto r = parse_delete_config("a, b");
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(*r, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(parse_delete_config("a,,b"));
  EXPECT_FALSE(parse_delete_config("a,a"));
}

TEST(ConfigFormat, Entities) {
  ConfigArgs a;
  a.broker = 2;
  EXPECT_EQ(config_entity(a).name, "2");
  EXPECT_EQ(entity_text(config_entity(a)), "broker 2");
  ConfigArgs d;
  d.broker_defaults = true;
  EXPECT_EQ(config_entity(d).name, "");
  EXPECT_EQ(format_config_altered(config_entity(d), OutputFormat::kTable),
            "Completed updating default config for brokers in the cluster.\n");
  ConfigArgs l;
  l.broker_logger = 0;
  EXPECT_EQ(config_entity(l).resource_type, 8);
  EXPECT_EQ(format_config_altered(config_entity(l), OutputFormat::kTable),
            "Completed updating config for broker logger 0.\n");
}

TEST(ConfigFormat, DescribeShowsDynamicEntriesLikeKafkaConfigs) {
  std::vector<DescribedConfig> configs{
      {"log.retention.ms", "5000", 2, false, false,
       {{"log.retention.ms", "5000", 2}, {"log.retention.ms", "60000", 3}, {"log.retention.hours", "168", 5}}},
      {"num.partitions", "1", 5, true, false, {{"num.partitions", "1", 5}}},
      {"ssl.key.password", std::nullopt, 4, true, true, {}},
  };
  ConfigEntity e{4, "1"};
  EXPECT_EQ(format_config_describe(e, configs, false, OutputFormat::kTable),
            "Dynamic configs for broker 1 are:\n"
            "  log.retention.ms=5000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=5000, "
            "DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=60000, DEFAULT_CONFIG:log.retention.hours=168}\n");
  std::string all = format_config_describe(e, configs, true, OutputFormat::kTable);
  EXPECT_NE(all.find("All configs for broker 1 are:\n"), std::string::npos);
  EXPECT_NE(all.find("  ssl.key.password=null sensitive=true synonyms={}\n"), std::string::npos);
  auto doc = nlohmann::json::parse(format_config_describe(e, configs, false, OutputFormat::kJson));
  EXPECT_EQ(doc["entity"], "broker");
  EXPECT_EQ(doc["name"], "1");
  ASSERT_EQ(doc["configs"].size(), 1u);
  EXPECT_EQ(doc["configs"][0]["source"], "DYNAMIC_BROKER_CONFIG");
  EXPECT_EQ(doc["configs"][0]["synonyms"][2]["name"], "log.retention.hours");
}

TEST(ConfigArgs, ExactlyOneEntityAndSomethingToAlter) {
  auto parse = [](std::vector<std::string> argv) {
    CLI::App app;
    CliArgs args;
    configure_app(app, args);
    std::reverse(argv.begin(), argv.end());
    app.parse(argv);
    return args;
  };
  auto ok = parse({"config", "alter", "--broker-defaults", "--add-config", "log.retention.ms=5000"});
  EXPECT_EQ(ok.command, "config");
  EXPECT_EQ(ok.config.action, "alter");
  EXPECT_TRUE(ok.config.broker_defaults);
  auto d = parse({"config", "describe", "--broker", "3", "--all", "--output", "json"});
  EXPECT_EQ(d.config.broker, 3);
  EXPECT_TRUE(d.config.all);
  EXPECT_THROW(parse({"config", "describe"}), CLI::ParseError);
  EXPECT_THROW(parse({"config", "describe", "--broker", "1", "--broker-defaults"}), CLI::ParseError);
  EXPECT_THROW(parse({"config", "alter", "--broker", "1"}), CLI::ParseError);
  EXPECT_THROW(parse({"config", "alter", "--broker", "1", "--add-config", "a=[1"}), CLI::ParseError);
}

}  // namespace
}  // namespace spool::cli
