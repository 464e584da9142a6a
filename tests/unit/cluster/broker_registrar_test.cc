// BrokerRegistrar on the in-memory store: top-level paths, the cluster id
// (created once, then read), the broker epoch (czxid), re-registration after
// session expiry, and another session's registration waited out or refused.
#include "cluster/broker_registrar.h"

#include <gtest/gtest.h>

#include "cluster/memory_store.h"
#include "cluster/zk_paths.h"

namespace spool::cluster {
namespace {

struct FakeTime {
  int64_t now = 1'700'000'000'000;
  std::function<void()> on_sleep;  // runs at each sleep (e.g. expire a session)
  int sleeps = 0;
};

RegistrarOptions options(int32_t id, FakeTime& t, std::string cluster_id = "c1-proposed-id") {
  RegistrarOptions o;
  o.broker_id = id;
  o.endpoints = {EndPoint{"PLAINTEXT", "127.0.0.1", 9090 + id, "PLAINTEXT"}};
  o.rack = "rack-" + std::to_string(id);
  o.proposed_cluster_id = std::move(cluster_id);
  o.existing_wait_ms = 10'000;
  o.retry_backoff_ms = 1'000;
  o.now_ms = [&t] { return t.now; };
  o.sleep_ms = [&t](int64_t ms) {
    t.now += ms;
    ++t.sleeps;
    if (t.on_sleep) t.on_sleep();
  };
  return o;
}

TEST(BrokerRegistrar, PrepareCreatesPathsAndClusterIdOnce) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore s1(tree), s2(tree);
  FakeTime t;
  BrokerRegistrar r1(s1, options(1, t, "first-id"));
  auto id = r1.prepare();
  ASSERT_TRUE(id.is_ok()) << id.status().message();
  EXPECT_EQ(*id, "first-id");
  for (const auto& p : zk_paths::persistent_paths()) EXPECT_TRUE(s1.exists(p).is_ok()) << p;
  auto raw = s1.get(std::string(zk_paths::kClusterId));
  ASSERT_TRUE(raw.is_ok());
  EXPECT_EQ(raw->data, R"({"version":"1","id":"first-id"})");

  // A second broker proposing another id joins the first one's cluster.
  BrokerRegistrar r2(s2, options(2, t, "second-id"));
  auto id2 = r2.prepare();
  ASSERT_TRUE(id2.is_ok());
  EXPECT_EQ(*id2, "first-id");
}

TEST(BrokerRegistrar, CorruptClusterIdIsAnError) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore s(tree);
  ASSERT_TRUE(ensure_path(s, "/cluster").is_ok());
  ASSERT_TRUE(s.create("/cluster/id", "not json").is_ok());
  FakeTime t;
  BrokerRegistrar r(s, options(1, t));
  auto id = r.prepare();
  ASSERT_FALSE(id.is_ok());
  EXPECT_NE(id.status().message().find("/cluster/id"), std::string::npos) << id.status().message();
}

TEST(BrokerRegistrar, RegisterWritesKafkaJsonAndReturnsCzxid) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore s(tree);
  FakeTime t;
  BrokerRegistrar r(s, options(3, t));
  { auto p = r.prepare(); ASSERT_TRUE(p.is_ok()) << p.status().message(); }
  EXPECT_EQ(r.broker_epoch(), -1);
  auto epoch = r.register_broker();
  ASSERT_TRUE(epoch.is_ok()) << epoch.status().message();
  auto node = s.get("/brokers/ids/3");
  ASSERT_TRUE(node.is_ok());
  EXPECT_EQ(*epoch, node->stat.czxid);
  EXPECT_EQ(r.broker_epoch(), *epoch);
  EXPECT_EQ(node->stat.ephemeral_owner, s.session_id());
  auto decoded = decode_broker(3, node->data);
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().message();
  EXPECT_EQ(decoded->endpoints, (std::vector<EndPoint>{{"PLAINTEXT", "127.0.0.1", 9093, "PLAINTEXT"}}));
  EXPECT_EQ(decoded->rack, std::optional<std::string>("rack-3"));
  EXPECT_EQ(decoded->timestamp_ms, t.now);
  // Registering again on the same session (a retried create) keeps the epoch.
  auto again = r.register_broker();
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(*again, *epoch);
}

TEST(BrokerRegistrar, ReRegistrationAfterExpiryHasAHigherEpoch) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore s(tree);
  FakeTime t;
  BrokerRegistrar r(s, options(1, t));
  { auto p = r.prepare(); ASSERT_TRUE(p.is_ok()) << p.status().message(); }
  auto first = r.register_broker();
  ASSERT_TRUE(first.is_ok());
  s.expire();
  tree->deliver();
  EXPECT_EQ(s.exists("/brokers/ids/1").code(), StoreCode::kSessionExpired);
  ASSERT_TRUE(s.reconnect().is_ok());
  EXPECT_EQ(s.exists("/brokers/ids/1").code(), StoreCode::kNoNode);
  auto second = r.register_broker();
  ASSERT_TRUE(second.is_ok()) << second.status().message();
  EXPECT_GT(*second, *first);
}

TEST(BrokerRegistrar, WaitsOutAPreviousSessionThenRegisters) {
  auto tree = std::make_shared<MemoryTree>();
  auto old_process = std::make_unique<MemoryStore>(tree);
  MemoryStore s(tree);
  FakeTime t;
  BrokerRegistrar old_reg(*old_process, options(1, t));
  { auto p = old_reg.prepare(); ASSERT_TRUE(p.is_ok()) << p.status().message(); }
  ASSERT_TRUE(old_reg.register_broker().is_ok());
  // The old process was killed; its session expires during the third wait.
  t.on_sleep = [&] {
    if (t.sleeps == 3) old_process->expire();
  };
  BrokerRegistrar r(s, options(1, t));
  auto epoch = r.register_broker();
  ASSERT_TRUE(epoch.is_ok()) << epoch.status().message();
  EXPECT_EQ(t.sleeps, 3);
  EXPECT_EQ(s.get("/brokers/ids/1")->stat.ephemeral_owner, s.session_id());
}

TEST(BrokerRegistrar, AnotherLiveSessionWithTheSameIdIsRefused) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore other(tree), s(tree);
  FakeTime t;
  BrokerRegistrar first(other, options(5, t));
  { auto p = first.prepare(); ASSERT_TRUE(p.is_ok()) << p.status().message(); }
  ASSERT_TRUE(first.register_broker().is_ok());
  BrokerRegistrar r(s, options(5, t));
  const int64_t start = t.now;
  auto epoch = r.register_broker();
  ASSERT_FALSE(epoch.is_ok());
  EXPECT_NE(epoch.status().message().find("broker id 5 is already registered at /brokers/ids/5"), std::string::npos)
      << epoch.status().message();
  EXPECT_GE(t.now - start, 10'000);  // waited existing_wait_ms
  EXPECT_EQ(t.sleeps, 10);
  EXPECT_EQ(r.broker_epoch(), -1);
  EXPECT_EQ(other.get("/brokers/ids/5")->stat.ephemeral_owner, other.session_id());
}

TEST(BrokerRegistrar, StoreFailureNamesPathAndCode) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore s(tree);
  FakeTime t;
  BrokerRegistrar r(s, options(1, t));
  s.disconnect();
  auto id = r.prepare();
  ASSERT_FALSE(id.is_ok());
  EXPECT_NE(id.status().message().find("/brokers"), std::string::npos) << id.status().message();
  EXPECT_NE(id.status().message().find(store_code_name(StoreCode::kConnectionLoss)), std::string::npos)
      << id.status().message();
}

}  // namespace
}  // namespace spool::cluster
