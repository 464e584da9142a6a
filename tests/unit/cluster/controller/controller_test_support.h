// Fixture for Controller tests: one MemoryTree (manual delivery) shared by a
// session per broker, an admin session for the test's own writes, and a
// Controller per broker over a QueuedBrokerChannel on a FakeBrokerTransport
// (auto-answering by default). settle() delivers watch events and runs
// every controller's queue until nothing is left (bounded).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/controller/controller.h"
#include "cluster/controller/fake_broker_transport.h"
#include "cluster/controller/queued_broker_channel.h"
#include "cluster/memory_store.h"
#include "cluster/memory_tree.h"
#include "cluster/zk_data.h"
#include "cluster/zk_paths.h"

namespace spool::cluster::controller::testing {

inline TopicId topic_id_of(const std::string& topic) {
  TopicId id{};
  for (size_t i = 0; i < topic.size() && i < id.size(); ++i) id[i] = static_cast<uint8_t>(topic[i]);
  id[15] = 0x5a;
  return id;
}

struct Node {
  int32_t id = -1;
  std::unique_ptr<MemoryStore> session;
  FakeBrokerTransport transport;
  std::unique_ptr<QueuedBrokerChannel> channel;
  std::unique_ptr<Controller> controller;
  bool unclean_for_all = false;  // topic override returned for every topic
  bool has_override = false;
};

class ClusterFixture : public ::testing::Test {
 protected:
  ClusterFixture() : tree(std::make_shared<MemoryTree>(MemoryTree::Delivery::kManual)), admin(tree) {
    for (const auto& p : zk_paths::persistent_paths()) EXPECT_TRUE(ensure_path(admin, p).is_ok()) << p;
  }
  ~ClusterFixture() override {
    for (auto& [id, n] : nodes) {
      if (n->controller) n->controller->shutdown();
    }
  }

  // Opens broker id's session and registers /brokers/ids/N; returns its epoch
  // (czxid).
  int64_t start_broker(int32_t id) {
    auto& n = nodes[id];
    if (!n) n = std::make_unique<Node>();
    n->id = id;
    if (!n->session) n->session = std::make_unique<MemoryStore>(tree);
    return register_broker(id);
  }
  int64_t register_broker(int32_t id) {
    BrokerRegistration reg;
    reg.id = id;
    reg.endpoints.push_back(EndPoint{"PLAINTEXT", "broker" + std::to_string(id), 9090 + id, "PLAINTEXT"});
    reg.rack = "rack" + std::to_string(id % 2);
    reg.timestamp_ms = 1000;
    auto created = nodes[id]->session->create(zk_paths::broker_id(id), encode_broker(reg), CreateMode::kEphemeral);
    EXPECT_TRUE(created.is_ok()) << (created.is_ok() ? "" : created.error().message);
    auto st = admin.exists(zk_paths::broker_id(id));
    return st.is_ok() ? st->czxid : -1;
  }
  int64_t broker_epoch(int32_t id) {
    auto st = admin.exists(zk_paths::broker_id(id));
    return st.is_ok() ? st->czxid : -1;
  }

  // Starts the controller on broker id (manual mode: runs in settle()).
  Controller& start_controller(int32_t id, bool unclean_default = false) {
    auto& n = *nodes.at(id);
    n.transport.set_auto_answer(true);
    n.channel = std::make_unique<QueuedBrokerChannel>(n.transport);
    ControllerConfig cfg;
    cfg.broker_id = id;
    cfg.unclean_leader_election_enable = unclean_default;
    Node* np = &n;
    cfg.topic_unclean_leader_election = [np](const std::string&) -> std::optional<bool> {
      if (!np->has_override) return std::nullopt;
      return np->unclean_for_all;
    };
    cfg.now_ms = [] { return int64_t{424242}; };
    n.controller = std::make_unique<Controller>(cfg, *n.session, *n.channel);
    Controller* c = n.controller.get();
    n.session->set_session_listener([c](SessionState s) {
      if (s == SessionState::kExpired) c->session_expired();
    });
    c->start_manual();
    return *c;
  }

  Controller& ctl(int32_t id) { return *nodes.at(id)->controller; }
  FakeBrokerTransport& wire(int32_t id) { return nodes.at(id)->transport; }

  void settle() {
    for (int i = 0; i < 10000; ++i) {
      size_t n = tree->deliver();
      for (auto& [id, node] : nodes) {
        if (node->controller) n += node->controller->events().run_pending();
      }
      if (n == 0) return;
    }
    ADD_FAILURE() << "cluster did not settle";
  }

  void create_topic(const std::string& topic, const std::map<int32_t, std::vector<int32_t>>& partitions) {
    TopicAssignment a;
    a.topic_id = topic_id_of(topic);
    for (const auto& [p, reps] : partitions) a.partitions[p].replicas = reps;
    auto r = admin.create(zk_paths::topic(topic), encode_topic_assignment(a));
    ASSERT_TRUE(r.is_ok()) << r.error().message;
  }
  void set_assignment(const std::string& topic, const std::map<int32_t, std::vector<int32_t>>& partitions) {
    TopicAssignment a;
    a.topic_id = topic_id_of(topic);
    for (const auto& [p, reps] : partitions) a.partitions[p].replicas = reps;
    auto r = admin.set(zk_paths::topic(topic), encode_topic_assignment(a));
    ASSERT_TRUE(r.is_ok()) << r.error().message;
  }

  struct ZkState {
    cluster::PartitionState state;
    int32_t version = -1;  // -1: absent
  };
  ZkState zk_state(const std::string& topic, int32_t p) {
    ZkState out;
    TopicPartition tp(topic, p);
    auto got = admin.get(zk_paths::partition_state(tp));
    if (!got.is_ok()) return out;
    auto dec = decode_partition_state(tp, got->data);
    EXPECT_TRUE(dec.is_ok());
    if (dec.is_ok()) out.state = dec.value();
    out.version = got->stat.version;
    return out;
  }
  void write_state(const std::string& topic, int32_t p, int32_t leader, int32_t epoch, std::vector<int32_t> isr,
                   int32_t controller_epoch = 1) {
    TopicPartition tp(topic, p);
    ASSERT_TRUE(ensure_path(admin, zk_paths::topic_partition(tp)).is_ok());
    cluster::PartitionState st;
    st.leader = leader;
    st.leader_epoch = epoch;
    st.controller_epoch = controller_epoch;
    st.isr = std::move(isr);
    auto r = admin.create(zk_paths::partition_state(tp), encode_partition_state(st));
    ASSERT_TRUE(r.is_ok()) << r.error().message;
  }
  // The partition's leader reports a new ISR (AlterPartition) to the
  // active controller on node `via`, as it does when followers catch up;
  // both the request and the partition must succeed.
  void alter_isr(int32_t via, const std::string& topic, int32_t p, std::vector<int32_t> isr) {
    auto cur = zk_state(topic, p);
    AlterPartitionRequest req;
    req.broker_id = cur.state.leader;
    req.broker_epoch = broker_epoch(cur.state.leader);
    req.partitions.push_back(AlterPartitionItem{TopicPartition(topic, p), cur.state.leader_epoch, std::move(isr),
                                                LeaderRecoveryState::kRecovered, cur.version});
    std::optional<AlterPartitionResult> got;
    ctl(via).alter_partition(req, [&](const AlterPartitionResult& r) { got = r; });
    settle();
    ASSERT_TRUE(got && got->error == protocol::ErrorCode::kNone &&
                got->partitions.at(0).error == protocol::ErrorCode::kNone);
  }
  std::string data(const std::string& path) {
    auto got = admin.get(path);
    return got.is_ok() ? got->data : std::string("<absent>");
  }
  bool exists(const std::string& path) { return admin.exists(path).is_ok(); }

  std::shared_ptr<MemoryTree> tree;
  MemoryStore admin;
  std::map<int32_t, std::unique_ptr<Node>> nodes;
};

// The request kinds broker `to` got from the controller on `from`.
inline std::vector<std::string> kinds(FakeBrokerTransport& t, int32_t to) { return t.kinds(to); }

template <typename T>
std::vector<T> of_kind(const std::vector<ControllerRequest>& reqs) {
  std::vector<T> out;
  for (const auto& r : reqs) {
    if (std::holds_alternative<T>(r)) out.push_back(std::get<T>(r));
  }
  return out;
}

inline const LeaderAndIsrPartition* find_partition(const LeaderAndIsrRequest& r, const TopicPartition& tp) {
  for (const auto& p : r.partition_states) {
    if (p.partition == tp) return &p;
  }
  return nullptr;
}

}  // namespace spool::cluster::controller::testing
