// The controller as a broker runs it: its own event thread, a store whose
// watches fire on a delivery thread, a channel answered from the test
// thread. Every wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>

#include "controller_test_support.h"

namespace spool::cluster::controller {
namespace {

using namespace std::chrono_literals;
using testing::FakeBrokerTransport;

bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds limit = 5s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(2ms);
  }
  return cond();
}

void register_broker(MemoryStore& s, int32_t id) {
  BrokerRegistration reg;
  reg.id = id;
  reg.endpoints.push_back(EndPoint{"PLAINTEXT", "b" + std::to_string(id), 9000 + id, "PLAINTEXT"});
  ASSERT_TRUE(s.create(zk_paths::broker_id(id), encode_broker(reg), CreateMode::kEphemeral).is_ok());
}

TEST(ThreadedController, BrokerDeathAndControllerFailover) {
  auto tree = std::make_shared<MemoryTree>(MemoryTree::Delivery::kThread);
  MemoryStore admin(tree);
  for (const auto& p : zk_paths::persistent_paths()) ASSERT_TRUE(ensure_path(admin, p).is_ok());
  std::map<int32_t, std::unique_ptr<MemoryStore>> sessions;
  for (int32_t b : {1, 2, 3}) {
    sessions[b] = std::make_unique<MemoryStore>(tree);
    register_broker(*sessions[b], b);
  }
  TopicAssignment a;
  a.topic_id = testing::topic_id_of("t");
  a.partitions[0].replicas = {1, 2, 3};
  a.partitions[1].replicas = {2, 3, 1};
  ASSERT_TRUE(admin.create("/brokers/topics/t", encode_topic_assignment(a)).is_ok());

  struct Node {
    FakeBrokerTransport transport;
    std::unique_ptr<QueuedBrokerChannel> channel;
    std::unique_ptr<Controller> controller;
  };
  std::map<int32_t, Node> nodes;
  for (int32_t b : {1, 2}) {
    auto& n = nodes[b];
    n.transport.set_auto_answer(true);
    n.channel = std::make_unique<QueuedBrokerChannel>(n.transport);
    ControllerConfig cfg;
    cfg.broker_id = b;
    n.controller = std::make_unique<Controller>(cfg, *sessions[b], *n.channel);
    Controller* c = n.controller.get();
    sessions[b]->set_session_listener([c](SessionState s) {
      if (s == SessionState::kExpired) c->session_expired();
    });
  }
  nodes[1].controller->start();
  ASSERT_TRUE(eventually([&] { return nodes[1].controller->is_active(); }));
  nodes[2].controller->start();
  auto state = [&](int32_t p) {
    TopicPartition tp("t", p);
    auto got = admin.get(zk_paths::partition_state(tp));
    cluster::PartitionState st;
    st.leader = -100;
    if (got.is_ok()) {
      auto d = decode_partition_state(tp, got->data);
      if (d.is_ok()) st = d.value();
    }
    return st;
  };
  ASSERT_TRUE(eventually([&] { return state(0).leader == 1 && state(1).leader == 2; }));
  ASSERT_TRUE(eventually([&] { return nodes[2].controller->active_controller_id() == 1; }));

  // Broker 3 (a follower everywhere) dies: it leaves both ISRs.
  sessions[3]->expire();
  ASSERT_TRUE(eventually([&] { return state(0).isr == std::vector<int32_t>{1, 2}; }));
  ASSERT_TRUE(eventually([&] { return state(1).isr == std::vector<int32_t>{2, 1}; }));

  // The controller's broker dies: 2 takes over and leads t-0.
  sessions[1]->expire();
  ASSERT_TRUE(eventually([&] { return nodes[2].controller->is_active(); }));
  EXPECT_EQ(nodes[2].controller->epoch(), 2);
  ASSERT_TRUE(eventually([&] { return state(0).leader == 2; }));
  EXPECT_EQ(state(0).isr, (std::vector<int32_t>{2}));
  EXPECT_EQ(state(0).controller_epoch, 2);
  EXPECT_TRUE(eventually([&] { return !nodes[1].controller->is_active(); }));

  for (auto& [id, n] : nodes) n.controller->shutdown();
  EXPECT_TRUE(tree->drain(2s));
}

}  // namespace
}  // namespace spool::cluster::controller
