#include "config/topic_config.h"

#include <gtest/gtest.h>

namespace spool::config {
namespace {

TEST(TopicConfig, ValidValues) {
  EXPECT_TRUE(validate_topic_config("retention.ms", "1000").is_ok());
  EXPECT_TRUE(validate_topic_config("retention.ms", "-1").is_ok());
  EXPECT_TRUE(validate_topic_config("cleanup.policy", "compact,delete").is_ok());
  EXPECT_FALSE(validate_topic_config("cleanup.policy", "").is_ok());
  EXPECT_FALSE(validate_topic_config("cleanup.policy", " , ").is_ok());
  EXPECT_TRUE(validate_topic_config("message.timestamp.type", "LogAppendTime").is_ok());
  EXPECT_TRUE(validate_topic_config("min.cleanable.dirty.ratio", "0.1").is_ok());
  EXPECT_TRUE(validate_topic_config("durable.writes", "false").is_ok());
}

TEST(TopicConfig, InvalidValuesCarryInvalidConfigCode) {
  for (auto [k, v] : std::vector<std::pair<const char*, const char*>>{{"retention.ms", "-2"},
                                                                      {"segment.bytes", "10"},
                                                                      {"cleanup.policy", "shred"},
                                                                      {"compression.type", "brotli"},
                                                                      {"min.insync.replicas", "0"},
                                                                      {"max.message.bytes", "x"},
                                                                      {"min.cleanable.dirty.ratio", "2"},
                                                                      {"preallocate", "maybe"}}) {
    Status s = validate_topic_config(k, v);
    EXPECT_FALSE(s.is_ok()) << k << "=" << v;
    EXPECT_EQ(s.kafka_code(), kInvalidConfigCode);
    EXPECT_NE(s.message().find(k), std::string::npos) << s.message();
  }
}

TEST(TopicConfig, UnknownKeyDidYouMean) {
  Status s = validate_topic_config("retention.mss", "1");
  EXPECT_EQ(s.kafka_code(), kInvalidConfigCode);
  EXPECT_NE(s.message().find("did you mean 'retention.ms'"), std::string::npos) << s.message();
}

TEST(TopicConfig, CrossKeyRules) {
  EXPECT_FALSE(validate_topic_configs({{"min.compaction.lag.ms", "10"}, {"max.compaction.lag.ms", "5"}}).is_ok());
  EXPECT_FALSE(validate_topic_configs({{"retention.ms", "100"}, {"local.retention.ms", "200"}}).is_ok());
  EXPECT_TRUE(validate_topic_configs({{"retention.ms", "100"}, {"local.retention.ms", "50"}}).is_ok());
}

TEST(TopicConfig, EffectiveConfigFollowsBrokerDefaults) {
  auto broker = BrokerConfig::load(std::nullopt,
                                   {"log.retention.minutes=5", "log.segment.bytes=1000", "log.roll.hours=1",
                                    "message.max.bytes=2000", "log.message.timestamp.type=LogAppendTime",
                                    "durable.writes=false", "log.cleanup.policy=compact"},
                                   nullptr);
  ASSERT_TRUE(broker.is_ok()) << broker.status().message();
  auto eff = effective_topic_config(*broker, {{"segment.bytes", " 5000 "}});
  EXPECT_EQ(eff.size(), topic_key_defs().size());
  EXPECT_EQ(eff["retention.ms"], "300000");
  EXPECT_EQ(eff["segment.bytes"], "5000");
  EXPECT_EQ(eff["segment.ms"], "3600000");
  EXPECT_EQ(eff["max.message.bytes"], "2000");
  EXPECT_EQ(eff["message.timestamp.type"], "LogAppendTime");
  EXPECT_EQ(eff["durable.writes"], "false");
  EXPECT_EQ(eff["cleanup.policy"], "compact");
  EXPECT_EQ(eff["flush.ms"], "9223372036854775807");
  EXPECT_EQ(eff["remote.storage.enable"], "false");
  EXPECT_EQ(eff["segment.index.bytes"], "10485760");
}

TEST(TopicConfig, EverySynonymIsABrokerKeyAndDefaultsParse) {
  for (const TopicKeyDef& d : topic_key_defs()) {
    if (d.broker_synonym) {
      EXPECT_NE(find_broker_key(d.broker_synonym), nullptr) << d.def.name;
    }
    EXPECT_TRUE(parse_value(d.def, d.def.default_value).is_ok()) << d.def.name;
  }
}

}  // namespace
}  // namespace spool::config
