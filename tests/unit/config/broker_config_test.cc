#include "config/broker_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <fstream>

#include "config/config_def.h"

namespace spool::config {
namespace {

Result<BrokerConfig> with(const std::vector<std::string>& overrides, std::vector<std::string>* warnings = nullptr) {
  return BrokerConfig::load(std::nullopt, overrides, warnings);
}

std::string error_of(const std::vector<std::string>& overrides) {
  auto r = with(overrides);
  EXPECT_FALSE(r.is_ok());
  return r.is_ok() ? std::string() : r.status().message();
}

TEST(BrokerConfig, Defaults) {
  BrokerConfig c;
  EXPECT_EQ(c.broker_id(), 0);
  ASSERT_EQ(c.listeners().size(), 1u);
  EXPECT_EQ(c.listeners()[0].name, "PLAINTEXT");
  EXPECT_EQ(c.listeners()[0].host, "");
  EXPECT_EQ(c.listeners()[0].port, 9092);
  EXPECT_EQ(c.log_dirs(), std::vector<std::string>{"/tmp/kafka-logs"});
  EXPECT_EQ(c.num_partitions(), 1);
  EXPECT_EQ(c.default_replication_factor(), 1);
  EXPECT_TRUE(c.auto_create_topics());
  EXPECT_TRUE(c.delete_topic_enable());
  EXPECT_EQ(c.log_segment_bytes(), 1 << 30);
  EXPECT_EQ(c.log_roll_ms(), 168LL * 3600 * 1000);
  EXPECT_EQ(c.log_retention_ms(), 168LL * 3600 * 1000);
  EXPECT_EQ(c.log_retention_bytes(), -1);
  EXPECT_EQ(c.log_retention_check_interval_ms(), 300000);
  EXPECT_EQ(c.log_flush_interval_messages(), INT64_MAX);
  EXPECT_EQ(c.log_flush_interval_ms(), INT64_MAX);
  EXPECT_EQ(c.log_flush_offset_checkpoint_interval_ms(), 60000);
  EXPECT_EQ(c.log_index_interval_bytes(), 4096);
  EXPECT_EQ(c.log_index_size_max_bytes(), 10 * 1024 * 1024);
  EXPECT_EQ(c.log_message_timestamp_type(), TimestampType::kCreateTime);
  EXPECT_EQ(c.message_max_bytes(), 1048588);
  EXPECT_EQ(c.socket_request_max_bytes(), 104857600);
  EXPECT_EQ(c.max_connections(), INT32_MAX);
  EXPECT_EQ(c.connections_max_idle_ms(), 600000);
  EXPECT_EQ(c.num_recovery_threads_per_data_dir(), 1);
  EXPECT_EQ(c.log_cleanup_policy(), std::vector<std::string>{"delete"});
  EXPECT_TRUE(c.log_cleanup_delete());
  EXPECT_FALSE(c.log_cleanup_compact());
  EXPECT_EQ(c.min_insync_replicas(), 1);
  EXPECT_TRUE(c.durable_writes());
  EXPECT_GE(c.reactor_threads(), 1);
  EXPECT_EQ(c.log_level(), "info");
  EXPECT_EQ(c.get("log.format"), "text");
  EXPECT_FALSE(c.is_set("num.partitions"));
  EXPECT_EQ(c.get("num.io.threads"), "8");
  EXPECT_EQ(c.get_optional("log.dirs"), std::nullopt);
}

TEST(BrokerConfig, KeyTableIsConsistent) {
  size_t n = 0;
  for (const KeyDef& d : broker_key_defs()) {
    ++n;
    EXPECT_EQ(find_broker_key(d.name), &d) << "duplicate key " << d.name;
    if (d.default_value != nullptr) {
      auto parsed = parse_value(d, d.default_value);
      EXPECT_TRUE(parsed.is_ok()) << d.name << ": " << parsed.status().message();
    }
  }
  EXPECT_GT(n, 250u);
}

TEST(BrokerConfig, OverridesApplyInOrderAfterFile) {
  std::string path = ::testing::TempDir() + "/spool_cfg_test.properties";
  {
    std::ofstream f(path);
    f << "num.partitions=3\nlog.dirs=/data/a, /data/b\nbroker.id=7\n";
  }
  auto r = BrokerConfig::load(path, {"num.partitions=5", "num.partitions = 6"}, nullptr);
  std::remove(path.c_str());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->num_partitions(), 6);
  EXPECT_EQ(r->broker_id(), 7);
  EXPECT_EQ(r->log_dirs(), (std::vector<std::string>{"/data/a", "/data/b"}));
  EXPECT_TRUE(r->is_set("num.partitions"));
}

TEST(BrokerConfig, LogDirsWinsOverLogDir) {
  auto r = with({"log.dir=/x", "log.dirs=/y"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->log_dirs(), std::vector<std::string>{"/y"});
  r = with({"log.dir=/x"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->log_dirs(), std::vector<std::string>{"/x"});
  EXPECT_NE(error_of({"log.dirs= , "}).find("log.dirs"), std::string::npos);
}

TEST(BrokerConfig, BadOverrideSyntax) {
  EXPECT_NE(error_of({"num.partitions"}).find("expected key=value"), std::string::npos);
  EXPECT_NE(error_of({"=3"}).find("expected key=value"), std::string::npos);
}

TEST(BrokerConfig, UnknownKeyDidYouMean) {
  std::string e = error_of({"log.retenion.ms=1000"});
  EXPECT_NE(e.find("unknown config key 'log.retenion.ms'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'log.retention.ms'?"), std::string::npos) << e;
  e = error_of({"totally.unrelated.thing=1"});
  EXPECT_NE(e.find("unknown config key"), std::string::npos);
  EXPECT_EQ(e.find("did you mean"), std::string::npos) << e;
}

TEST(BrokerConfig, TopicKeyAtBrokerLevelPointsToBrokerKey) {
  std::string e = error_of({"retention.ms=1000"});
  EXPECT_NE(e.find("topic-level"), std::string::npos) << e;
  EXPECT_NE(e.find("log.retention.ms"), std::string::npos) << e;
}

TEST(BrokerConfig, BadValuesNameKeyAndRange) {
  std::string e = error_of({"num.partitions=0"});
  EXPECT_NE(e.find("'num.partitions'"), std::string::npos) << e;
  EXPECT_NE(e.find("[1, 2147483647]"), std::string::npos) << e;
  e = error_of({"num.partitions=abc"});
  EXPECT_NE(e.find("not an int"), std::string::npos) << e;
  EXPECT_NE(e.find("allowed: an int in [1, 2147483647]"), std::string::npos) << e;
  e = error_of({"log.segment.bytes=13"});
  EXPECT_NE(e.find("[14, 2147483647]"), std::string::npos) << e;
  e = error_of({"message.max.bytes=3000000000"});
  EXPECT_NE(e.find("message.max.bytes"), std::string::npos) << e;
  e = error_of({"auto.create.topics.enable=yes"});
  EXPECT_NE(e.find("true or false"), std::string::npos) << e;
  e = error_of({"log.message.timestamp.type=Create"});
  EXPECT_NE(e.find("[CreateTime, LogAppendTime]"), std::string::npos) << e;
  e = error_of({"log.cleanup.policy=delete,shred"});
  EXPECT_NE(e.find("'shred'"), std::string::npos) << e;
  e = error_of({"log.level=verbose"});
  EXPECT_NE(e.find("trace, debug, info, warn, error"), std::string::npos) << e;
  e = error_of({"log.format=xml"});
  EXPECT_NE(e.find("'log.format'"), std::string::npos) << e;
  EXPECT_NE(e.find("text, json"), std::string::npos) << e;
  EXPECT_TRUE(with({"log.format=json"}).is_ok());
  e = error_of({"reactor.threads=-1"});
  EXPECT_NE(e.find("reactor.threads"), std::string::npos) << e;
  e = error_of({"log.cleaner.min.cleanable.ratio=1.5"});
  EXPECT_NE(e.find("log.cleaner.min.cleanable.ratio"), std::string::npos) << e;
  e = error_of({"broker.id=-2"});
  EXPECT_NE(e.find("broker.id"), std::string::npos) << e;
  e = error_of({"broker.id=1001"});
  EXPECT_NE(e.find("reserved.broker.max.id"), std::string::npos) << e;
}

TEST(BrokerConfig, ValuesAreNormalized) {
  auto r = with({"auto.create.topics.enable= FALSE ", "log.cleanup.policy= compact , delete"});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_FALSE(r->auto_create_topics());
  EXPECT_EQ(r->get("log.cleanup.policy"), "compact,delete");
  EXPECT_TRUE(r->log_cleanup_compact());
}

TEST(BrokerConfig, UnactedKeysWarnOncePerKey) {
  std::vector<std::string> warnings;
  // ssl.keymanager.algorithm and the listener override are refused keys at their off value.
  auto r = with({"num.io.threads=4", "num.io.threads=5", "ssl.keymanager.algorithm=SunX509", "num.partitions=2",
                 "listener.name.plaintext.ssl.keystore.location="},
                &warnings);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("listener.name.plaintext.ssl.keystore.location"), std::string::npos);
  EXPECT_NE(warnings[1].find("num.io.threads"), std::string::npos);
  EXPECT_NE(warnings[2].find("ssl.keymanager.algorithm"), std::string::npos);
  EXPECT_EQ(r->unacted_keys().size(), 3u);
  EXPECT_EQ(r->get("num.io.threads"), "5");
}

TEST(BrokerConfig, RetentionPrecedence) {
  auto r = with({"log.retention.hours=1"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->log_retention_ms(), 3600000);
  r = with({"log.retention.hours=1", "log.retention.minutes=2"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->log_retention_ms(), 120000);
  r = with({"log.retention.hours=1", "log.retention.minutes=2", "log.retention.ms=500"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->log_retention_ms(), 500);
  r = with({"log.retention.ms=-1"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->log_retention_ms(), -1);
  r = with({"log.retention.hours=-5"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->log_retention_ms(), -1);
}

TEST(BrokerConfig, RollAndFlushResolution) {
  auto r = with({"log.roll.hours=2"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->log_roll_ms(), 7200000);
  r = with({"log.roll.hours=2", "log.roll.ms=1000"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->log_roll_ms(), 1000);
  r = with({"log.flush.scheduler.interval.ms=3000"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->log_flush_interval_ms(), 3000);
  r = with({"log.flush.scheduler.interval.ms=3000", "log.flush.interval.ms=10"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->log_flush_interval_ms(), 10);
}

TEST(BrokerConfig, Listeners) {
  auto r = with({"listeners=PLAINTEXT://127.0.0.1:9092"});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->listeners()[0].host, "127.0.0.1");
  EXPECT_EQ(r->listeners()[0].security_protocol, "PLAINTEXT");
  EXPECT_EQ(r->advertised_listeners()[0].host, "127.0.0.1");

  r = with({"listeners=PLAINTEXT://:9092"});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->listeners()[0].host, "");
  EXPECT_FALSE(r->advertised_listeners()[0].host.empty());

  r = with({"listeners=PLAINTEXT://[::1]:9093", "advertised.listeners=PLAINTEXT://broker1:19092"});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->listeners().size(), 1u);
  EXPECT_EQ(r->listeners()[0].host, "::1");
  EXPECT_EQ(r->listeners()[0].to_string(), "PLAINTEXT://[::1]:9093");
  ASSERT_EQ(r->advertised_listeners().size(), 1u);
  EXPECT_EQ(r->advertised_listeners()[0].port, 19092);
  // Several listeners parse (names, protocols, advertised subset); those
  // not PLAINTEXT are then refused until they are served (refusal_test.cc).
  std::map<std::string, std::string> protocols = {{"PLAINTEXT", "PLAINTEXT"}, {"SSL", "SSL"}};
  auto parsed = parse_listeners("PLAINTEXT://[::1]:9093,SSL://localhost:9094", "listeners", protocols, true);
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[1].security_protocol, "SSL");
  EXPECT_EQ((*parsed)[1].port, 9094);

  r = with({"listeners=INTERNAL://:9092", "listener.security.protocol.map=INTERNAL:PLAINTEXT"});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->listeners()[0].security_protocol, "PLAINTEXT");
}

TEST(BrokerConfig, InterBrokerListenerName) {
  const char* two = "listeners=CLIENT://127.0.0.1:9092,REPLICATION://127.0.0.1:9093";
  const char* map = "listener.security.protocol.map=CLIENT:PLAINTEXT,REPLICATION:PLAINTEXT,PLAINTEXT:PLAINTEXT";
  // Named: upper-cased, and it must be advertised (the others connect to it).
  auto r = with({two, map, "inter.broker.listener.name=replication"});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->inter_broker_listener_name(), "REPLICATION");
  std::string e = error_of({two, map, "inter.broker.listener.name=REPLICATION",
                            "advertised.listeners=CLIENT://client.example:9092"});
  EXPECT_NE(e.find("not defined in advertised.listeners"), std::string::npos) << e;
  // Unset: Kafka's PLAINTEXT (security.inter.broker.protocol) when there is
  // such a listener, else Spool's first advertised one.
  r = with({"listeners=EXTERNAL://127.0.0.1:9092,PLAINTEXT://127.0.0.1:9093",
            "listener.security.protocol.map=EXTERNAL:PLAINTEXT,PLAINTEXT:PLAINTEXT"});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->inter_broker_listener_name(), "PLAINTEXT");
  r = with({two, map});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->inter_broker_listener_name(), "CLIENT");
  r = with({two, map, "advertised.listeners=REPLICATION://10.0.0.2:9093,CLIENT://client.example:9092"});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->inter_broker_listener_name(), "REPLICATION");
  e = error_of({two, map, "advertised.listeners="});
  EXPECT_NE(e.find("advertised.listeners"), std::string::npos) << e;
  // control.plane.listener.name: advertised, and not the inter-broker one.
  r = with({two, map, "control.plane.listener.name=replication"});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->control_plane_listener_name(), "REPLICATION");
  EXPECT_EQ(r->inter_broker_listener_name(), "CLIENT");
  EXPECT_EQ(with({two, map})->control_plane_listener_name(), "");
  e = error_of({two, map, "control.plane.listener.name=CLIENT"});
  EXPECT_NE(e.find("different value from the inter broker listener name"), std::string::npos) << e;
  e = error_of({two, map, "control.plane.listener.name=REPLICATION", "advertised.listeners=CLIENT://h:9092"});
  EXPECT_NE(e.find("'control.plane.listener.name'"), std::string::npos) << e;
}

TEST(BrokerConfig, BadListeners) {
  for (const char* bad : {"listeners=127.0.0.1:9092", "listeners=PLAINTEXT://host", "listeners=PLAINTEXT://host:99999",
                          "listeners=PLAINTEXT://host:abc", "listeners=FOO://host:9092",
                          "listeners=PLAINTEXT://a:9092,PLAINTEXT://b:9093", "listeners=PLAINTEXT://a:9092,SSL://b:9092",
                          "listeners=", "listeners=PLAINTEXT://ho st:9092"}) {
    std::string e = error_of({bad});
    EXPECT_NE(e.find("listeners"), std::string::npos) << bad << " -> " << e;
  }
  std::string e = error_of({"listeners=PLAINTEXT://0.0.0.0:9092"});
  EXPECT_NE(e.find("0.0.0.0"), std::string::npos) << e;
  auto r = with({"listeners=PLAINTEXT://0.0.0.0:9092", "advertised.listeners=PLAINTEXT://myhost:9092"});
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  e = error_of({"advertised.listeners=SSL://host:9093"});
  EXPECT_NE(e.find("not defined in listeners"), std::string::npos) << e;
  e = error_of({"inter.broker.listener.name=internal"});
  EXPECT_NE(e.find("INTERNAL"), std::string::npos) << e;
  EXPECT_TRUE(with({"inter.broker.listener.name=plaintext"}).is_ok());
  e = error_of({"listener.security.protocol.map=PLAINTEXT:TLS"});
  EXPECT_NE(e.find("listener.security.protocol.map"), std::string::npos) << e;
}

TEST(BrokerConfig, AcceptsKafkaSampleServerProperties) {
  auto props = parse_properties(
      "broker.id=0\n"
      "num.network.threads=3\nnum.io.threads=8\n"
      "socket.send.buffer.bytes=102400\nsocket.receive.buffer.bytes=102400\nsocket.request.max.bytes=104857600\n"
      "log.dirs=/tmp/kafka-logs\nnum.partitions=1\nnum.recovery.threads.per.data.dir=1\n"
      "offsets.topic.replication.factor=1\ntransaction.state.log.replication.factor=1\n"
      "transaction.state.log.min.isr=1\nlog.retention.hours=168\nlog.segment.bytes=1073741824\n"
      "log.retention.check.interval.ms=300000\nzookeeper.connect=localhost:2181\n"
      "zookeeper.connection.timeout.ms=18000\ngroup.initial.rebalance.delay.ms=0\n");
  ASSERT_TRUE(props.is_ok());
  std::vector<std::string> warnings;
  // Every key is recognised, zookeeper.connect included (cluster mode).
  auto r = BrokerConfig::from_properties(*props, &warnings);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->get("zookeeper.connect"), "localhost:2181");
  EXPECT_EQ(r->get_long("zookeeper.connection.timeout.ms"), 18000);
  EXPECT_FALSE(warnings.empty());
}

TEST(BrokerConfig, AcceptsKafkaKRaftServerProperties) {
  auto props = parse_properties(
      "process.roles=broker,controller\n"
      "node.id=1\n"
      "controller.quorum.voters=1@localhost:9093\n"
      "listeners=PLAINTEXT://:9092,CONTROLLER://:9093\n"
      "inter.broker.listener.name=PLAINTEXT\n"
      "advertised.listeners=PLAINTEXT://localhost:9092\n"
      "controller.listener.names=CONTROLLER\n"
      "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,"
      "SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL\n"
      "log.dirs=/tmp/kraft-combined-logs\n"
      "offsets.topic.replication.factor=1\n");
  ASSERT_TRUE(props.is_ok());
  std::vector<std::string> warnings;
  // Both listeners are served (Spool has no KRaft quorum: the CONTROLLER
  // one is one more PLAINTEXT listener); only PLAINTEXT is advertised.
  auto r = BrokerConfig::from_properties(*props, &warnings);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->listeners().size(), 2u);
  EXPECT_EQ(r->listeners()[1].name, "CONTROLLER");
  ASSERT_EQ(r->advertised_listeners().size(), 1u);
  EXPECT_EQ(r->advertised_listeners()[0].host, "localhost");
  EXPECT_EQ(r->inter_broker_listener_name(), "PLAINTEXT");
  EXPECT_EQ(r->get_list("process.roles"), (std::vector<std::string>{"broker", "controller"}));
}

}  // namespace
}  // namespace spool::config
