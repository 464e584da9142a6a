#include "config/describe.h"

#include <gtest/gtest.h>

#include "config/topic_config.h"

namespace spool::config {
namespace {

const ConfigEntry& find(const std::vector<ConfigEntry>& v, const std::string& name) {
  for (const auto& e : v) {
    if (e.name == name) return e;
  }
  static ConfigEntry none;
  ADD_FAILURE() << "no entry " << name;
  return none;
}

TEST(DescribeConfig, TopicSourcesAndSynonyms) {
  auto broker = BrokerConfig::load(std::nullopt, {"log.retention.minutes=5", "log.segment.bytes=2000"}, nullptr);
  ASSERT_TRUE(broker.is_ok()) << broker.status().message();
  auto entries = describe_topic_config(*broker, {{"cleanup.policy", "compact"}});
  EXPECT_EQ(entries.size(), topic_key_defs().size());

  const auto& ret = find(entries, "retention.ms");
  EXPECT_EQ(ret.value, "300000");
  EXPECT_EQ(ret.source, ConfigSource::kStaticBroker);
  ASSERT_EQ(ret.synonyms.size(), 2u);
  EXPECT_EQ(ret.synonyms[0].name, "log.retention.minutes");
  EXPECT_EQ(ret.synonyms[0].value, "5");
  EXPECT_EQ(ret.synonyms[1].name, "log.retention.hours");
  EXPECT_EQ(ret.synonyms[1].source, ConfigSource::kDefault);

  const auto& cp = find(entries, "cleanup.policy");
  EXPECT_EQ(cp.value, "compact");
  EXPECT_EQ(cp.source, ConfigSource::kDynamicTopic);
  ASSERT_GE(cp.synonyms.size(), 2u);
  EXPECT_EQ(cp.synonyms[0].source, ConfigSource::kDynamicTopic);
  EXPECT_EQ(cp.synonyms[1].name, "log.cleanup.policy");

  const auto& seg = find(entries, "segment.bytes");
  EXPECT_EQ(seg.source, ConfigSource::kStaticBroker);
  EXPECT_EQ(seg.value, "2000");

  const auto& mi = find(entries, "min.insync.replicas");
  EXPECT_EQ(mi.source, ConfigSource::kDefault);
  EXPECT_EQ(mi.value, "1");

  const auto& rs = find(entries, "remote.storage.enable");
  EXPECT_EQ(rs.source, ConfigSource::kDefault);
  ASSERT_EQ(rs.synonyms.size(), 1u);
  EXPECT_EQ(rs.synonyms[0].name, "remote.storage.enable");
}

TEST(DescribeConfig, BrokerHidesSecrets) {
  // Secrets with a value are refused until TLS exists (refusal.h); set but
  // empty they start, and are still never shown.
  auto broker = BrokerConfig::load(std::nullopt,
                                   {"ssl.keystore.password=", "num.partitions=4",
                                    "listener.name.plaintext.ssl.key.password="},
                                   nullptr);
  ASSERT_TRUE(broker.is_ok()) << broker.status().message();
  auto entries = describe_broker_config(*broker);
  const auto& pw = find(entries, "ssl.keystore.password");
  EXPECT_TRUE(pw.is_sensitive);
  EXPECT_EQ(pw.value, std::nullopt);
  EXPECT_EQ(pw.source, ConfigSource::kStaticBroker);
  const auto& np = find(entries, "num.partitions");
  EXPECT_EQ(np.value, "4");
  EXPECT_TRUE(np.read_only);
  const auto& pref = find(entries, "listener.name.plaintext.ssl.key.password");
  EXPECT_TRUE(pref.is_sensitive);
  EXPECT_EQ(pref.value, std::nullopt);
  const auto& io = find(entries, "num.io.threads");
  EXPECT_EQ(io.source, ConfigSource::kDefault);
  EXPECT_EQ(io.value, "8");
}

TEST(DescribeConfig, DynamicLayersAsKafkaReportsThem) {
  auto statics = BrokerConfig::load(std::nullopt, {"log.retention.hours=1", "message.max.bytes=1000"}, nullptr);
  ASSERT_TRUE(statics.is_ok());
  auto layers = BrokerConfigLayers::make(std::make_shared<const BrokerConfig>(*statics),
                                         {{"message.max.bytes", "3000"}},
                                         {{"message.max.bytes", "2000"}, {"log.retention.ms", "5000"}});
  ASSERT_TRUE(layers.is_ok()) << layers.status().message();

  auto broker = describe_broker_config(*layers);
  const auto& mm = find(broker, "message.max.bytes");
  EXPECT_EQ(mm.value, "3000");
  EXPECT_EQ(mm.source, ConfigSource::kDynamicBroker);
  EXPECT_FALSE(mm.read_only);
  ASSERT_EQ(mm.synonyms.size(), 4u);
  EXPECT_EQ(mm.synonyms[0].source, ConfigSource::kDynamicBroker);
  EXPECT_EQ(mm.synonyms[1].source, ConfigSource::kDynamicDefaultBroker);
  EXPECT_EQ(mm.synonyms[1].value, "2000");
  EXPECT_EQ(mm.synonyms[2].source, ConfigSource::kStaticBroker);
  EXPECT_EQ(mm.synonyms[3].source, ConfigSource::kDefault);
  const auto& rm = find(broker, "log.retention.ms");
  EXPECT_EQ(rm.value, "5000");
  EXPECT_EQ(rm.source, ConfigSource::kDynamicDefaultBroker);
  ASSERT_GE(rm.synonyms.size(), 2u);
  EXPECT_EQ(rm.synonyms[1].name, "log.retention.hours");
  EXPECT_EQ(rm.synonyms[1].source, ConfigSource::kStaticBroker);
  // A less specific synonym describes itself only (Kafka drops the more specific ones).
  const auto& rh = find(broker, "log.retention.hours");
  ASSERT_FALSE(rh.synonyms.empty());
  EXPECT_EQ(rh.synonyms[0].name, "log.retention.hours");
  EXPECT_TRUE(rh.read_only);
  EXPECT_TRUE(find(broker, "log.dirs").read_only);

  auto defaults = describe_broker_defaults(*layers);
  ASSERT_EQ(defaults.size(), 2u);
  const auto& dm = find(defaults, "message.max.bytes");
  EXPECT_EQ(dm.value, "2000");
  EXPECT_EQ(dm.source, ConfigSource::kDynamicDefaultBroker);
  ASSERT_EQ(dm.synonyms.size(), 1u);
  EXPECT_EQ(dm.synonyms[0].source, ConfigSource::kDynamicDefaultBroker);

  auto topic = describe_topic_config(*layers, {});
  const auto& tm = find(topic, "max.message.bytes");
  EXPECT_EQ(tm.value, "3000");
  EXPECT_EQ(tm.source, ConfigSource::kDynamicBroker);
  const auto& tr = find(topic, "retention.ms");
  EXPECT_EQ(tr.value, "5000");
  EXPECT_EQ(tr.source, ConfigSource::kDynamicDefaultBroker);
  EXPECT_EQ(tr.synonyms[0].name, "log.retention.ms");
  auto overridden = describe_topic_config(*layers, {{"retention.ms", "7"}});
  EXPECT_EQ(find(overridden, "retention.ms").source, ConfigSource::kDynamicTopic);
  EXPECT_EQ(find(overridden, "retention.ms").value, "7");
}

}  // namespace
}  // namespace spool::config
