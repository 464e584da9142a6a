// Dynamic broker configs: which keys an update may set, Kafka's messages and
// codes for the ones it may not, value checks, and the precedence of the
// layers (broker_config_layers.h).
#include "config/dynamic_keys.h"

#include <gtest/gtest.h>

#include "config/broker_config_layers.h"
#include "config/config_def.h"
#include "config/topic_config.h"

namespace spool::config {
namespace {

Status check(const std::map<std::string, std::string>& c, bool per_broker = true) {
  auto r = validate_dynamic_broker_configs(c, per_broker);
  return r ? Status::ok() : r.status();
}

TEST(DynamicKeys, EveryDynamicKeyIsABrokerKey) {
  for (const DynamicKey& k : dynamic_broker_keys()) EXPECT_NE(find_broker_key(k.name), nullptr) << k.name;
}

TEST(DynamicKeys, EveryTopicDefaultIsDynamicAsInKafka) {
  // Kafka's DynamicLogConfig: every broker synonym of a topic key.
  for (const TopicKeyDef& t : topic_key_defs()) {
    if (t.broker_synonym == nullptr || std::string_view(t.broker_synonym) == "durable.writes") continue;
    EXPECT_NE(find_dynamic_broker_key(t.broker_synonym), nullptr) << t.broker_synonym;
  }
}

TEST(DynamicKeys, AcceptedKeysAreActedOnAndLive) {
  for (const char* k : {"log.retention.ms", "message.max.bytes", "min.insync.replicas",
                        "unclean.leader.election.enable", "log.cleanup.policy", "max.connections",
                        "leader.replication.throttled.rate", "follower.replication.throttled.rate",
                        "producer.id.expiration.ms", "log.cleaner.backoff.ms", "max.connections.per.ip",
                        "max.connections.per.ip.overrides", "max.connection.creation.rate"})
    EXPECT_TRUE(accepts_dynamic_update(k)) << k;
  for (const char* k : {"log.dirs", "log.retention.hours", "num.replica.fetchers", "compression.type",
                        "replica.alter.log.dirs.io.max.bytes.per.second", "ssl.keystore.location", "listeners",
                        "broker.id"})
    EXPECT_FALSE(accepts_dynamic_update(k)) << k;
}

TEST(DynamicKeys, NormalizesAcceptedValues) {
  auto r = validate_dynamic_broker_configs(
      {{"unclean.leader.election.enable", "TRUE"},
       {"log.retention.ms", " 5000 "},
       {"log.cleanup.policy", "compact, delete"}},
      false);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->at("unclean.leader.election.enable"), "true");
  EXPECT_EQ(r->at("log.retention.ms"), "5000");
  EXPECT_EQ(r->at("log.cleanup.policy"), "compact,delete");
}

TEST(DynamicKeys, ReadOnlyKeysGetKafkasMessage) {
  Status s = check({{"log.dirs", "/x"}, {"broker.id", "3"}, {"log.retention.ms", "1"}});
  EXPECT_EQ(s.kafka_code(), kInvalidRequestCode);
  EXPECT_EQ(s.message(), "Cannot update these configs dynamically: Set(broker.id, log.dirs)");
  // The hours synonym is read-only in Kafka; only log.retention.ms is dynamic.
  EXPECT_EQ(check({{"log.retention.hours", "1"}}).kafka_code(), kInvalidRequestCode);
}

TEST(DynamicKeys, BadValuesAreInvalidConfig) {
  Status s = check({{"message.max.bytes", "lots"}});
  EXPECT_EQ(s.kafka_code(), 40);
  EXPECT_NE(s.message().find("message.max.bytes"), std::string::npos) << s.message();
  EXPECT_EQ(check({{"leader.replication.throttled.rate", "-1"}}).kafka_code(), 40);
  EXPECT_EQ(check({{"log.cleanup.policy", "shred"}}).kafka_code(), 40);
  EXPECT_TRUE(check({{"leader.replication.throttled.rate", "0"}}));
}

TEST(DynamicKeys, UnknownKeysAreInvalidConfigWithAHint) {
  Status s = check({{"log.retention.msec", "1"}});
  EXPECT_EQ(s.kafka_code(), 40);
  EXPECT_NE(s.message().find("did you mean 'log.retention.ms'"), std::string::npos) << s.message();
}

TEST(DynamicKeys, PerBrokerKeysAtTheDefaultLevel) {
  Status s = check({{"listeners", "PLAINTEXT://:9093"}}, false);
  EXPECT_EQ(s.kafka_code(), kInvalidRequestCode);
  EXPECT_EQ(s.message(),
            "Cannot update these configs at default cluster level, broker id must be specified: Set(listeners)");
}

TEST(DynamicKeys, TlsStoresOnlyWithAListenerPrefix) {
  Status s = check({{"ssl.keystore.location", "/k"}});
  EXPECT_EQ(s.kafka_code(), kInvalidRequestCode);
  EXPECT_NE(s.message().find("only per-listener using the listener prefix: Set(ssl.keystore.location)"),
            std::string::npos);
}

TEST(DynamicKeys, SpoolRefusesWhatItCannotApplyLive) {
  Status fetchers = check({{"num.replica.fetchers", "4"}});
  EXPECT_EQ(fetchers.kafka_code(), kInvalidRequestCode);
  EXPECT_NE(fetchers.message().find("num.replica.fetchers (Spool applies it only at start"), std::string::npos)
      << fetchers.message();
  Status ignored = check({{"compression.type", "zstd"}});
  EXPECT_NE(ignored.message().find("compression.type (Spool does not act on this config)"), std::string::npos);
  Status closed = check({{"replica.alter.log.dirs.io.max.bytes.per.second", "9223372036854775807"}});  // even the off value
  EXPECT_EQ(closed.kafka_code(), kInvalidRequestCode);
  EXPECT_NE(closed.message().find("fails closed"), std::string::npos);
  Status listener = check({{"listener.name.plaintext.ssl.keystore.location", "/k"}});
  EXPECT_EQ(listener.kafka_code(), kInvalidRequestCode);
}

TEST(DynamicKeys, KafkaSynonyms) {
  EXPECT_EQ(broker_key_synonyms("log.retention.hours"),
            (std::vector<std::string>{"log.retention.ms", "log.retention.minutes", "log.retention.hours"}));
  EXPECT_EQ(broker_key_synonyms("log.flush.interval.ms"),
            (std::vector<std::string>{"log.flush.interval.ms", "log.flush.scheduler.interval.ms"}));
  EXPECT_EQ(broker_key_synonyms("message.max.bytes"), (std::vector<std::string>{"message.max.bytes"}));
}

std::shared_ptr<const BrokerConfig> load(std::vector<std::string> overrides) {
  auto c = BrokerConfig::load(std::nullopt, overrides, nullptr);
  EXPECT_TRUE(c.is_ok()) << c.status().message();
  return std::make_shared<const BrokerConfig>(*c);
}

TEST(BrokerConfigLayers, PrecedencePerKey) {
  auto statics = load({"message.max.bytes=1000", "log.segment.bytes=100000", "min.insync.replicas=2"});
  auto layers = BrokerConfigLayers::make(statics, {{"message.max.bytes", "3000"}},
                                         {{"message.max.bytes", "2000"}, {"log.segment.bytes", "200000"}});
  ASSERT_TRUE(layers.is_ok()) << layers.status().message();
  const BrokerConfig& eff = layers->effective();
  EXPECT_EQ(eff.message_max_bytes(), 3000);     // per-broker > default > static
  EXPECT_EQ(eff.log_segment_bytes(), 200000);   // default > static
  EXPECT_EQ(eff.min_insync_replicas(), 2);      // static > default
  EXPECT_EQ(eff.get_long("log.roll.hours"), 168);  // the key's default
  EXPECT_EQ(layers->static_config().message_max_bytes(), 1000);
  EXPECT_EQ(effective_topic_config(eff, {}).at("max.message.bytes"), "3000");
}

TEST(BrokerConfigLayers, DynamicKeyHidesItsStaticSynonyms) {
  auto statics = load({"log.retention.hours=1"});
  auto layers = BrokerConfigLayers::make(statics, {}, {{"log.retention.ms", "5000"}});
  ASSERT_TRUE(layers.is_ok());
  EXPECT_EQ(layers->effective().log_retention_ms(), 5000);
  EXPECT_FALSE(layers->effective().is_set("log.retention.hours"));
  EXPECT_TRUE(layers->static_config().is_set("log.retention.hours"));
  // Without dynamic configs the effective config is the static one.
  BrokerConfigLayers plain(statics);
  EXPECT_EQ(plain.effective().log_retention_ms(), 3600000);
}

}  // namespace
}  // namespace spool::config
