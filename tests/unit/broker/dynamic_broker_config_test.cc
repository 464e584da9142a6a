// DynamicBrokerConfig on the in-memory store: load at start, alter (one node:
// applied at once; cluster: a notification and no local apply), what is
// stored (Kafka's JSON), validation that changes nothing, stored entries
// that fail validation, other brokers' entities, the applier and the
// topic defaults derived for the rest of the broker.
#include "broker/dynamic_broker_config.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "broker/entity_config_store.h"
#include "cluster/memory_store.h"
#include "cluster/memory_tree.h"
#include "cluster/zk_paths.h"

namespace spool::broker {
namespace {

namespace zk_paths = cluster::zk_paths;

config::BrokerConfig static_config(std::vector<std::string> overrides) {
  auto c = config::BrokerConfig::load(std::nullopt, std::move(overrides), nullptr);
  EXPECT_TRUE(c.is_ok()) << c.status().message();
  return *c;
}

struct Fixture {
  std::shared_ptr<cluster::MemoryTree> tree = std::make_shared<cluster::MemoryTree>();
  cluster::MemoryStore store{tree};
  std::shared_ptr<TopicDefaults> defaults = std::make_shared<TopicDefaults>();
  DynamicBrokerConfig dyn{static_config({"broker.id=1", "message.max.bytes=1000"}), 1, defaults};

  Status set(bool per_broker, std::map<std::string, std::string> kv, bool validate_only = false, bool notify = false) {
    return dyn.alter(
        store, per_broker,
        [&](config::DynamicConfigs& c) {
          for (auto& [k, v] : kv) c[k] = v;
          return Status::ok();
        },
        validate_only, notify);
  }
  std::string stored(const std::string& path) {
    auto n = store.get(path);
    return n ? n->data : "";
  }
  std::string topic_default(const std::string& key) { return defaults->snapshot()->at(key); }
};

TEST(DynamicBrokerConfig, StartsFromTheStaticConfig) {
  Fixture f;
  EXPECT_EQ(f.dyn.current()->effective().message_max_bytes(), 1000);
  EXPECT_EQ(f.topic_default("max.message.bytes"), "1000");
  EXPECT_EQ(f.dyn.current()->effective().get_long("leader.replication.throttled.rate"), INT64_MAX);
}

TEST(DynamicBrokerConfig, AlterOnOneNodeStoresAndAppliesAtOnce) {
  Fixture f;
  ASSERT_TRUE(f.set(false, {{"message.max.bytes", "2000"}, {"log.retention.ms", "5000"}}));
  EXPECT_EQ(f.stored(zk_paths::config_broker_default()),
            R"({"version":1,"config":{"log.retention.ms":"5000","message.max.bytes":"2000"}})");
  EXPECT_EQ(f.topic_default("max.message.bytes"), "2000");
  EXPECT_EQ(f.topic_default("retention.ms"), "5000");
  ASSERT_TRUE(f.set(true, {{"message.max.bytes", "3000"}, {"follower.replication.throttled.rate", "1048576"}}));
  EXPECT_EQ(f.stored(zk_paths::config_broker(1)),
            R"({"version":1,"config":{"follower.replication.throttled.rate":"1048576","message.max.bytes":"3000"}})");
  EXPECT_EQ(f.topic_default("max.message.bytes"), "3000");
  EXPECT_EQ(f.dyn.current()->effective().get_long("follower.replication.throttled.rate"), 1048576);
  EXPECT_EQ(f.dyn.current()->effective().get_long("leader.replication.throttled.rate"), INT64_MAX);
  // DELETE: back to the default layer.
  ASSERT_TRUE(f.dyn.alter(
      f.store, true, [](config::DynamicConfigs& c) { c.erase("message.max.bytes"); return Status::ok(); }, false,
      false));
  EXPECT_EQ(f.topic_default("max.message.bytes"), "2000");
  // A restart reads both back.
  auto defaults = std::make_shared<TopicDefaults>();
  DynamicBrokerConfig again(static_config({"broker.id=1", "message.max.bytes=1000"}), 1, defaults);
  ASSERT_TRUE(again.load(f.store));
  EXPECT_EQ(again.current()->effective().message_max_bytes(), 2000);
  EXPECT_EQ(again.current()->effective().log_retention_ms(), 5000);
  EXPECT_EQ(again.current()->effective().get_long("follower.replication.throttled.rate"), 1048576);
  EXPECT_EQ(defaults->snapshot()->at("retention.ms"), "5000");
}

TEST(DynamicBrokerConfig, RefusedOrValidateOnlyChangesNothing) {
  Fixture f;
  ASSERT_TRUE(f.set(false, {{"message.max.bytes", "2000"}}));
  const std::string before = f.stored(zk_paths::config_broker_default());
  Status ro = f.set(false, {{"log.dirs", "/elsewhere"}});
  EXPECT_EQ(ro.kafka_code(), 42);
  EXPECT_EQ(ro.message(),
            "Invalid config value for resource ConfigResource(type=BROKER, name=''): Cannot update these configs "
            "dynamically: Set(log.dirs)");
  Status bad = f.set(true, {{"message.max.bytes", "-5"}});
  EXPECT_EQ(bad.kafka_code(), 40);
  EXPECT_NE(bad.message().find("name='1'"), std::string::npos) << bad.message();
  ASSERT_TRUE(f.set(false, {{"message.max.bytes", "9000"}}, /*validate_only=*/true));
  EXPECT_EQ(f.stored(zk_paths::config_broker_default()), before);
  EXPECT_FALSE(f.store.exists(zk_paths::config_broker(1)));
  EXPECT_EQ(f.topic_default("max.message.bytes"), "2000");
}

TEST(DynamicBrokerConfig, ClusterAlterNotifiesAndAppliesOnTheNotification) {
  Fixture f;
  ASSERT_TRUE(cluster::ensure_path(f.store, std::string(zk_paths::kConfigChanges)));
  ASSERT_TRUE(f.set(false, {{"log.retention.ms", "5000"}}, false, /*notify=*/true));
  auto kids = f.store.children(std::string(zk_paths::kConfigChanges));
  ASSERT_TRUE(kids.is_ok());
  ASSERT_EQ(kids->size(), 1u);
  EXPECT_EQ(f.stored(std::string(zk_paths::kConfigChanges) + "/" + kids->front()),
            R"({"version":2,"entity_path":"brokers/<default>"})");
  EXPECT_EQ(f.topic_default("retention.ms"), "604800000");  // not before the listener hands it over
  f.dyn.apply_stored("<default>", {{"log.retention.ms", "5000"}});
  EXPECT_EQ(f.topic_default("retention.ms"), "5000");
}

TEST(DynamicBrokerConfig, StoredEntitiesOfOthersOrWithBadEntries) {
  Fixture f;
  int applied = 0;
  f.dyn.set_applier([&](const config::BrokerConfigLayers&, const config::BrokerConfigLayers&) { ++applied; });
  EXPECT_EQ(applied, 1);  // replays the current state
  f.dyn.apply_stored("2", {{"message.max.bytes", "7"}});  // broker 2's: not ours
  EXPECT_EQ(applied, 1);
  EXPECT_EQ(f.topic_default("max.message.bytes"), "1000");
  // Kafka's fromPersistentProps: bad entries are dropped, the rest applied.
  f.dyn.apply_stored("1", {{"message.max.bytes", "x"}, {"log.dirs", "/y"}, {"log.segment.bytes", "100000"}});
  EXPECT_EQ(applied, 2);
  EXPECT_EQ(f.dyn.current()->per_broker(), (config::DynamicConfigs{{"log.segment.bytes", "100000"}}));
  EXPECT_EQ(f.topic_default("segment.bytes"), "100000");
  // A node that does not decode at start counts as empty.
  ASSERT_TRUE(cluster::ensure_path(f.store, std::string(zk_paths::kConfigBrokers)));
  ASSERT_TRUE(f.store.create(zk_paths::config_broker_default(), "{not json"));
  auto defaults = std::make_shared<TopicDefaults>();
  DynamicBrokerConfig again(static_config({"broker.id=1"}), 1, defaults);
  EXPECT_TRUE(again.load(f.store));
  EXPECT_TRUE(again.current()->cluster_default().empty());
}

TEST(EntityConfigStore, VersionedWritesLoseToAConcurrentWriter) {
  auto tree = std::make_shared<cluster::MemoryTree>();
  cluster::MemoryStore store(tree);
  const std::string path = zk_paths::config_broker_default();
  auto absent = read_entity_config(store, path);
  ASSERT_TRUE(absent.is_ok());
  EXPECT_EQ(absent->version, StoredEntityConfig::kNoNode);
  auto first = write_entity_config(store, path, {{"a", "1"}}, StoredEntityConfig::kNoNode, "");
  ASSERT_TRUE(first.is_ok()) << first.status().message();
  EXPECT_TRUE(*first);  // parents created
  // A second writer that also read "absent" loses.
  auto second = write_entity_config(store, path, {{"a", "2"}}, StoredEntityConfig::kNoNode, "");
  ASSERT_TRUE(second.is_ok());
  EXPECT_FALSE(*second);
  auto now = read_entity_config(store, path);
  ASSERT_TRUE(now.is_ok());
  EXPECT_EQ(now->config, (cluster::EntityConfig{{"a", "1"}}));
  EXPECT_FALSE(*write_entity_config(store, path, {{"a", "3"}}, now->version + 1, ""));
  EXPECT_TRUE(*write_entity_config(store, path, {{"a", "3"}}, now->version, ""));
}

}  // namespace
}  // namespace spool::broker
