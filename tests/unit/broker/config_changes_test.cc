// ConfigChanges on the in-memory store: notifications in sequence order,
// each applied once to its entity type's handler, watch wake-ups, other
// entities and bad input skipped.
#include "broker/config_changes.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/memory_store.h"
#include "cluster/memory_tree.h"
#include "cluster/zk_data.h"
#include "cluster/zk_paths.h"

namespace spool::broker {
namespace {

namespace zk_paths = cluster::zk_paths;

struct Fixture {
  std::shared_ptr<cluster::MemoryTree> tree = std::make_shared<cluster::MemoryTree>();
  cluster::MemoryStore store{tree};
  std::vector<std::pair<std::string, cluster::EntityConfig>> applied;
  std::vector<std::pair<std::string, cluster::EntityConfig>> brokers;
  std::vector<std::pair<std::string, cluster::EntityConfig>> users;
  int wakes = 0;
  ConfigChanges changes{
      store,
      {[this](const std::string& t, const cluster::EntityConfig& c) { applied.emplace_back(t, c); },
       [this](const std::string& b, const cluster::EntityConfig& c) { brokers.emplace_back(b, c); },
       [this](const std::string& u, const cluster::EntityConfig& c) { users.emplace_back(u, c); }},
      [this] { ++wakes; }};
  Fixture() {
    for (const auto& p : {"/config", "/config/changes", "/config/topics", "/config/brokers"}) EXPECT_TRUE(store.create(p, "").is_ok()) << p;
  }
  void set_config(const std::string& topic, const cluster::EntityConfig& c) {
    const std::string path = zk_paths::config_topic(topic);
    if (!store.set(path, cluster::encode_entity_config(c)).is_ok()) {
      ASSERT_TRUE(store.create(path, cluster::encode_entity_config(c)).is_ok());
    }
  }
  void notify(const std::string& data) {
    ASSERT_TRUE(store.create(zk_paths::config_change_prefix(), data, cluster::CreateMode::kPersistentSequential).is_ok());
  }
};

TEST(ConfigChanges, SequenceNumberOfChildNames) {
  EXPECT_EQ(config_change_sequence("config_change_0000000042"), 42);
  EXPECT_EQ(config_change_sequence("config_change_0000000000"), 0);
  EXPECT_EQ(config_change_sequence("config_change_"), -1);
  EXPECT_EQ(config_change_sequence("config_change_12x"), -1);
  EXPECT_EQ(config_change_sequence("isr_change_0000000001"), -1);
}

TEST(ConfigChanges, AppliesEachTopicChangeOnceInOrder) {
  Fixture f;
  f.set_config("a", {{"retention.ms", "1000"}});
  f.notify(cluster::encode_config_change("topics/a"));
  f.set_config("b", {{"min.insync.replicas", "2"}});
  f.notify(cluster::encode_config_change("topics/b"));
  auto r = f.changes.poll();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(*r, 2);
  ASSERT_EQ(f.applied.size(), 2u);
  EXPECT_EQ(f.applied[0].first, "a");
  EXPECT_EQ(f.applied[0].second, (cluster::EntityConfig{{"retention.ms", "1000"}}));
  EXPECT_EQ(f.applied[1].first, "b");
  EXPECT_EQ(f.changes.last_processed(), 1);
  // Nothing new: nothing applied again.
  EXPECT_EQ(*f.changes.poll(), 0);
  EXPECT_EQ(f.applied.size(), 2u);
  // A new notification wakes the owner through the children watch.
  f.tree->deliver();
  EXPECT_EQ(f.wakes, 0);
  f.set_config("a", {});
  f.notify(cluster::encode_config_change("topics/a"));
  f.tree->deliver();
  // Each poll set a watch (two here): a wake-up more is a poll that finds
  // nothing new, never a change applied twice.
  EXPECT_EQ(f.wakes, 2);
  EXPECT_EQ(*f.changes.poll(), 1);
  ASSERT_EQ(f.applied.size(), 3u);
  EXPECT_TRUE(f.applied[2].second.empty());
  EXPECT_EQ(f.changes.last_processed(), 2);
}

TEST(ConfigChanges, SkipsOtherEntitiesBadInputAndMissingConfigIsEmpty) {
  Fixture f;
  f.notify(cluster::encode_config_change("clients/alice"));      // no handler
  f.notify("{not json");                                         // undecodable notification
  f.notify(cluster::encode_config_change("topics/gone"));       // no /config/topics/gone: empty set
  ASSERT_TRUE(f.store.create(zk_paths::config_topic("bad"), "{\"version\":1,\"config\":7}").is_ok());
  f.notify(cluster::encode_config_change("topics/bad"));        // undecodable config
  f.set_config("ok", {{"cleanup.policy", "compact"}});
  f.notify("{\"version\":1,\"entity_type\":\"topics\",\"entity_name\":\"ok\"}");  // v1 form
  auto r = f.changes.poll();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(*r, 2);
  ASSERT_EQ(f.applied.size(), 2u);
  EXPECT_EQ(f.applied[0].first, "gone");
  EXPECT_TRUE(f.applied[0].second.empty());
  EXPECT_EQ(f.applied[1].first, "ok");
  EXPECT_EQ(f.applied[1].second, (cluster::EntityConfig{{"cleanup.policy", "compact"}}));
  EXPECT_EQ(f.changes.last_processed(), 4);
  EXPECT_TRUE(f.brokers.empty());
  EXPECT_TRUE(f.users.empty());
}

TEST(ConfigChanges, UserEntitiesGoToTheUserHandler) {
  Fixture f;
  ASSERT_TRUE(f.store.create("/config/users", "").is_ok());
  ASSERT_TRUE(f.store
                  .create(zk_paths::config_entity(zk_paths::kEntityUsers, "alice"),
                          cluster::encode_entity_config({{"SCRAM-SHA-256", "salt=AA==,stored_key=AA==,server_key=AA==,iterations=4096"}}))
                  .is_ok());
  f.notify(cluster::encode_config_change("users/alice"));
  f.notify(cluster::encode_config_change("users/bob"));  // no node: the empty set (credentials deleted)
  ASSERT_EQ(*f.changes.poll(), 2);
  ASSERT_EQ(f.users.size(), 2u);
  EXPECT_EQ(f.users[0].first, "alice");
  EXPECT_EQ(f.users[0].second.count("SCRAM-SHA-256"), 1u);
  EXPECT_EQ(f.users[1].first, "bob");
  EXPECT_TRUE(f.users[1].second.empty());
  EXPECT_TRUE(f.applied.empty());
}

TEST(ConfigChanges, QuotaEntitiesGoToTheQuotaHandler) {
  Fixture f;
  std::vector<std::pair<std::string, cluster::EntityConfig>> users, quotas;
  ConfigChanges changes{f.store,
                        {nullptr, nullptr,
                         [&users](const std::string& u, const cluster::EntityConfig& c) { users.emplace_back(u, c); },
                         [&quotas](const std::string& e, const cluster::EntityConfig& c) { quotas.emplace_back(e, c); }},
                        nullptr};
  const cluster::EntityConfig rate{{"producer_byte_rate", "1024"}};
  // /config/users/a%2Fb is made on the way to the deeper node: no data.
  ASSERT_TRUE(cluster::ensure_path(f.store, "/config/users/a%2Fb/clients").is_ok());
  ASSERT_TRUE(f.store.create("/config/users/a%2Fb/clients/c", cluster::encode_entity_config(rate)).is_ok());
  f.notify(cluster::encode_config_change("users/a%2Fb/clients/c"));
  f.notify(cluster::encode_config_change("users/a%2Fb"));
  f.notify(cluster::encode_config_change("clients/<default>"));  // no node: the empty set
  auto r = changes.poll();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(*r, 3);
  ASSERT_EQ(quotas.size(), 3u);
  EXPECT_EQ(quotas[0].first, "users/a%2Fb/clients/c");
  EXPECT_EQ(quotas[0].second, rate);
  EXPECT_EQ(quotas[1].first, "users/a%2Fb");
  EXPECT_TRUE(quotas[1].second.empty());
  EXPECT_EQ(quotas[2].first, "clients/<default>");
  // A user node goes to the SCRAM handler too, under its stored name.
  ASSERT_EQ(users.size(), 1u);
  EXPECT_EQ(users[0].first, "a%2Fb");
}

TEST(ConfigChanges, BrokerEntitiesGoToTheBrokerHandler) {
  Fixture f;
  ASSERT_TRUE(f.store.create(zk_paths::config_broker_default(),
                             cluster::encode_entity_config({{"log.retention.ms", "5000"}})).is_ok());
  f.notify(cluster::encode_config_change("brokers/<default>"));
  f.notify(cluster::encode_config_change("brokers/2"));  // no /config/brokers/2: the empty set
  f.set_config("t", {{"retention.ms", "1"}});
  f.notify(cluster::encode_config_change("topics/t"));
  auto r = f.changes.poll();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(*r, 3);
  ASSERT_EQ(f.brokers.size(), 2u);
  EXPECT_EQ(f.brokers[0].first, "<default>");
  EXPECT_EQ(f.brokers[0].second, (cluster::EntityConfig{{"log.retention.ms", "5000"}}));
  EXPECT_EQ(f.brokers[1].first, "2");
  EXPECT_TRUE(f.brokers[1].second.empty());
  ASSERT_EQ(f.applied.size(), 1u);
  EXPECT_EQ(f.applied[0].first, "t");
}

TEST(ConfigChanges, StoreErrorIsReturned) {
  auto tree = std::make_shared<cluster::MemoryTree>();
  cluster::MemoryStore store(tree);
  ConfigChanges changes(store, {[](const std::string&, const cluster::EntityConfig&) {}, {}, {}}, [] {});
  auto r = changes.poll();  // /config/changes does not exist
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.code(), cluster::StoreCode::kNoNode);
}

}  // namespace
}  // namespace spool::broker
