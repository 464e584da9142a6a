// State-machine transition tables, the request batch's order and contents,
// and the conditional /state writes: BADVERSION re-read and retry, a newer
// controller's /state, fenced writes.
#include <gtest/gtest.h>

#include "cluster/controller/partition_state_machine.h"
#include "cluster/controller/replica_state_machine.h"
#include "cluster/controller/request_batch.h"
#include "controller_test_support.h"

namespace spool::cluster::controller {
namespace {

using testing::ClusterFixture;
using testing::FakeBrokerTransport;
using V = std::vector<int32_t>;
using PS = PartitionState;
using RS = ReplicaState;

TEST(PartitionTransitions, KafkasTable) {
  const PS all[] = {PS::kNonExistent, PS::kNew, PS::kOnline, PS::kOffline};
  int valid = 0;
  for (PS from : all) {
    for (PS to : all) valid += PartitionStateMachine::valid_transition(from, to) ? 1 : 0;
  }
  EXPECT_EQ(valid, 8);
  EXPECT_TRUE(PartitionStateMachine::valid_transition(PS::kNonExistent, PS::kNew));
  EXPECT_FALSE(PartitionStateMachine::valid_transition(PS::kNonExistent, PS::kOnline));
  EXPECT_TRUE(PartitionStateMachine::valid_transition(PS::kOnline, PS::kOnline));
  EXPECT_TRUE(PartitionStateMachine::valid_transition(PS::kNew, PS::kOffline));
  EXPECT_TRUE(PartitionStateMachine::valid_transition(PS::kOffline, PS::kNonExistent));
  EXPECT_FALSE(PartitionStateMachine::valid_transition(PS::kOnline, PS::kNonExistent));
  EXPECT_FALSE(PartitionStateMachine::valid_transition(PS::kOnline, PS::kNew));
}

TEST(ReplicaTransitions, KafkasTable) {
  const RS all[] = {RS::kNonExistent, RS::kNew, RS::kOnline, RS::kOffline,
                    RS::kDeletionStarted, RS::kDeletionSuccessful, RS::kDeletionIneligible};
  int valid = 0;
  for (RS from : all) {
    for (RS to : all) valid += ReplicaStateMachine::valid_transition(from, to) ? 1 : 0;
  }
  EXPECT_EQ(valid, 1 + 4 + 4 + 1 + 1 + 2 + 1);
  EXPECT_TRUE(ReplicaStateMachine::valid_transition(RS::kDeletionIneligible, RS::kOnline));
  EXPECT_TRUE(ReplicaStateMachine::valid_transition(RS::kOffline, RS::kDeletionStarted));
  EXPECT_FALSE(ReplicaStateMachine::valid_transition(RS::kOnline, RS::kDeletionStarted));
  EXPECT_TRUE(ReplicaStateMachine::valid_transition(RS::kDeletionStarted, RS::kDeletionIneligible));
  EXPECT_FALSE(ReplicaStateMachine::valid_transition(RS::kDeletionStarted, RS::kNonExistent));
  EXPECT_TRUE(ReplicaStateMachine::valid_transition(RS::kDeletionSuccessful, RS::kNonExistent));
}

class RequestBatchTest : public ::testing::Test {
 protected:
  RequestBatchTest() : channel(transport), batch(ctx, 7) {
    transport.set_auto_answer(true);
    ctx.epoch = 3;
    for (int32_t b : {1, 2}) {
      BrokerInfo info;
      info.id = b;
      info.epoch = 100 + b;
      info.endpoints.push_back(BrokerEndpoint{"PLAINTEXT", "h" + std::to_string(b), 9000 + b, "PLAINTEXT"});
      ctx.brokers[b] = info;
      channel.add_broker(info);
    }
    ctx.topic_ids["t"] = testing::topic_id_of("t");
    ctx.assignment[tp] = {1, 2, 5};
    ctx.leadership[tp] = PartitionLeadership{LeaderAndIsr{1, 4, {1, 2}, LeaderRecoveryState::kRecovered, 9}, 2};
  }
  FakeBrokerTransport transport;
  QueuedBrokerChannel channel;
  ControllerContext ctx;
  RequestBatch batch;
  TopicPartition tp{"t", 0};
};

TEST_F(RequestBatchTest, PerBrokerOrderIsLeaderAndIsrUpdateMetadataStopReplica) {
  batch.add_stop_replica({2}, tp, false);
  batch.add_update_metadata({2}, {});
  batch.add_leader_and_isr({1, 2, 5}, tp, ctx.leadership[tp], ctx.replicas(tp), true);
  batch.send(channel, ctx.epoch);
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(transport.kinds(2), (std::vector<std::string>{"LeaderAndIsr", "UpdateMetadata", "StopReplica"}));
  EXPECT_EQ(transport.kinds(1), (std::vector<std::string>{"LeaderAndIsr", "UpdateMetadata"}));
  EXPECT_TRUE(transport.kinds(5).empty());  // not registered: never addressed
  auto lai = std::get<LeaderAndIsrRequest>(transport.sent(2)[0]);
  EXPECT_EQ(lai.controller_id, 7);
  EXPECT_EQ(lai.controller_epoch, 3);
  EXPECT_EQ(lai.broker_epoch, 102);
  ASSERT_EQ(lai.partition_states.size(), 1u);
  const auto& p = lai.partition_states[0];
  EXPECT_EQ(p.controller_epoch, 2);
  EXPECT_EQ(p.leader, 1);
  EXPECT_EQ(p.leader_epoch, 4);
  EXPECT_EQ(p.isr, (V{1, 2}));
  EXPECT_EQ(p.partition_epoch, 9);
  EXPECT_EQ(p.replicas, (V{1, 2, 5}));
  EXPECT_TRUE(p.is_new);
  ASSERT_EQ(lai.live_leaders.size(), 1u);
  EXPECT_EQ(lai.live_leaders[0], (LiveLeader{1, "h1", 9001}));
  auto um = std::get<UpdateMetadataRequest>(transport.sent(2)[1]);
  ASSERT_EQ(um.partition_states.size(), 1u);
  EXPECT_EQ(um.partition_states[0].zk_version, 9);
  EXPECT_EQ(um.partition_states[0].offline_replicas, (V{5}));
  EXPECT_EQ(um.live_brokers.size(), 2u);
  auto sr = std::get<StopReplicaRequest>(transport.sent(2)[2]);
  ASSERT_EQ(sr.partitions.size(), 1u);
  EXPECT_EQ(sr.partitions[0], (StopReplicaPartition{tp, 4, false}));
}

TEST_F(RequestBatchTest, LiveLeadersAreNamedOnTheInterBrokerListener) {
  // Broker 1 registered a client listener first: followers must get its
  // REPLICATION endpoint, and a leader without one is left out.
  ctx.brokers[1].endpoints.insert(ctx.brokers[1].endpoints.begin(), BrokerEndpoint{"CLIENT", "c1", 7001, "PLAINTEXT"});
  ctx.brokers[1].endpoints.push_back(BrokerEndpoint{"REPLICATION", "r1", 8001, "PLAINTEXT"});
  auto live_leaders_sent = [&](const std::string& listener) {
    RequestBatch b(ctx, 7, listener);
    b.add_leader_and_isr({2}, tp, ctx.leadership[tp], ctx.replicas(tp), false);
    b.send(channel, ctx.epoch);
    auto sent = transport.sent(2);
    EXPECT_FALSE(sent.empty());
    return std::get<LeaderAndIsrRequest>(sent.front()).live_leaders;  // first per broker (see above)
  };
  auto leaders = live_leaders_sent("REPLICATION");
  ASSERT_EQ(leaders.size(), 1u);
  EXPECT_EQ(leaders[0], (LiveLeader{1, "r1", 8001}));
  transport.clear();
  EXPECT_TRUE(live_leaders_sent("NOWHERE").empty());
}

TEST_F(RequestBatchTest, TopicBeingDeletedGetsLeaderMinusTwoAndEpochMinusTwo) {
  ctx.topics_to_delete.insert("t");
  batch.add_update_metadata({1}, {tp});
  batch.add_stop_replica({1}, tp, true);
  batch.send(channel, ctx.epoch);
  auto um = std::get<UpdateMetadataRequest>(transport.sent(1)[0]);
  ASSERT_EQ(um.partition_states.size(), 1u);
  EXPECT_EQ(um.partition_states[0].leader, kLeaderDuringDelete);
  auto sr = std::get<StopReplicaRequest>(transport.sent(1)[1]);
  EXPECT_EQ(sr.partitions[0], (StopReplicaPartition{tp, -2, true}));
}

TEST_F(RequestBatchTest, PartitionWithoutLeadershipIsLeftOutOfUpdateMetadata) {
  TopicPartition fresh("t", 1);
  ctx.assignment[fresh] = {1};
  batch.add_update_metadata({1}, {fresh, tp});
  batch.send(channel, ctx.epoch);
  auto um = std::get<UpdateMetadataRequest>(transport.sent(1)[0]);
  ASSERT_EQ(um.partition_states.size(), 1u);
  EXPECT_EQ(um.partition_states[0].partition, tp);
}

// A store that lets another writer bump a /state between the controller's
// read and its conditional write, `times` times.
class RacingStore final : public MetadataStore {
 public:
  RacingStore(MemoryStore& inner, MemoryStore& other) : inner_(inner), other_(other) {}
  std::string race_path;
  int times = 0;
  int raced = 0;
  int64_t session_id() const override { return inner_.session_id(); }
  void set_session_listener(SessionListener l) override { inner_.set_session_listener(std::move(l)); }
  StoreResult<bool> reconnect() override { return inner_.reconnect(); }
  StoreResult<std::string> create(const std::string& p, const std::string& d, CreateMode m) override {
    return inner_.create(p, d, m);
  }
  StoreResult<NodeData> get(const std::string& p, Watcher w) override { return inner_.get(p, std::move(w)); }
  StoreResult<Stat> exists(const std::string& p, Watcher w) override { return inner_.exists(p, std::move(w)); }
  StoreResult<Stat> set(const std::string& p, const std::string& d, int32_t v) override { return inner_.set(p, d, v); }
  StoreResult<bool> remove(const std::string& p, int32_t v) override { return inner_.remove(p, v); }
  StoreResult<std::vector<std::string>> children(const std::string& p, Watcher w) override {
    return inner_.children(p, std::move(w));
  }
  StoreResult<std::vector<OpResult>> multi(const std::vector<Op>& ops) override {
    for (const auto& op : ops) {
      if (op.kind == Op::Kind::kSetData && op.path == race_path && raced < times) {
        ++raced;
        auto cur = other_.get(race_path);
        if (cur.is_ok()) other_.set(race_path, cur->data);  // same content, version + 1
      }
    }
    return inner_.multi(ops);
  }

 private:
  MemoryStore& inner_;
  MemoryStore& other_;
};

class StateWrites : public ClusterFixture {
 protected:
  // Broker 1's controller, active, on a RacingStore whose conditional writes
  // of `race_path` lose a race (set racing.times), every broker request
  // answered.
  struct RacingController {
    RacingController(MemoryStore& session, MemoryStore& admin, const std::string& race_path)
        : racing(session, admin), channel(transport), c(config(), racing, channel) {
      racing.race_path = race_path;
      transport.set_auto_answer(true);
      c.start_manual();
      c.events().run_pending();
    }
    static ControllerConfig config() {
      ControllerConfig cfg;
      cfg.broker_id = 1;
      return cfg;
    }
    RacingStore racing;
    FakeBrokerTransport transport;
    QueuedBrokerChannel channel;
    Controller c;
  };

  // Deliveries and controller events until neither has anything left.
  void run_until_quiet(Controller& c) {
    for (int i = 0; i < 20; ++i) {
      size_t n = tree->deliver() + c.events().run_pending();
      if (n == 0) break;
    }
  }
};

TEST_F(StateWrites, ElectionReReadsAndRetriesOnBadVersion) {
  for (int32_t b : {1, 2, 3}) start_broker(b);
  create_topic("t", {{0, {2, 3, 1}}});
  write_state("t", 0, 2, 5, {2, 3, 1});
  RacingController rc(*nodes[1]->session, admin, "/brokers/topics/t/partitions/0/state");
  auto& [racing, transport, channel, c] = rc;
  ASSERT_TRUE(c.is_active());
  racing.times = 2;  // the next two conditional writes of /state lose a race
  nodes[2]->session->expire();
  run_until_quiet(c);
  EXPECT_EQ(racing.raced, 2);
  auto st = zk_state("t", 0);
  EXPECT_EQ(st.state.leader, 3);
  EXPECT_EQ(st.state.leader_epoch, 6);  // one election despite two retries
  EXPECT_EQ(st.state.isr, (V{3, 1}));
  EXPECT_EQ(st.version, 3);  // two racing sets + the controller's write
  EXPECT_EQ(c.context().leadership.at(TopicPartition("t", 0)).leader_and_isr.partition_epoch, 3);
  EXPECT_TRUE(c.is_active());  // a partition BADVERSION is not fencing
  c.shutdown();
}

TEST_F(StateWrites, ElectionsAreWrittenInOneMultiAndARaceFallsBackToOneWriteEach) {
  for (int32_t b : {1, 2, 3}) start_broker(b);
  create_topic("t", {{0, {2, 3, 1}}, {1, {2, 3, 1}}, {2, {2, 3, 1}}});
  for (int32_t p : {0, 1, 2}) write_state("t", p, 2, 5, {2, 3, 1});
  RacingController rc(*nodes[1]->session, admin, "/brokers/topics/t/partitions/1/state");
  auto& [racing, transport, channel, c] = rc;
  ASSERT_TRUE(c.is_active());
  racing.times = 1;  // the multi of the three elections loses a race on partition 1
  nodes[2]->session->expire();
  run_until_quiet(c);
  EXPECT_EQ(racing.raced, 1);
  for (int32_t p : {0, 1, 2}) {
    auto st = zk_state("t", p);
    EXPECT_EQ(st.state.leader, 3) << p;
    EXPECT_EQ(st.state.leader_epoch, 6) << p;  // one election each
    EXPECT_EQ(st.state.isr, (V{3, 1})) << p;
    EXPECT_EQ(c.context().leadership.at(TopicPartition("t", p)).leader_and_isr.partition_epoch, st.version) << p;
  }
  EXPECT_EQ(zk_state("t", 0).version, 1);  // the failed multi wrote nothing; then one write
  EXPECT_EQ(zk_state("t", 1).version, 2);  // the racing set, then the retry after a re-read
  EXPECT_TRUE(c.is_active());
  c.shutdown();
}

TEST_F(StateWrites, StateWrittenByANewerControllerAbortsTheElection) {
  for (int32_t b : {1, 3}) start_broker(b);
  create_topic("t", {{0, {2, 3}}});
  write_state("t", 0, 2, 5, {2, 3}, /*controller_epoch=*/99);
  start_controller(1);
  settle();
  ASSERT_TRUE(ctl(1).is_active());
  ASSERT_EQ(ctl(1).epoch(), 1);
  auto st = zk_state("t", 0);
  EXPECT_EQ(st.state.leader, 2);  // untouched: neither the ISR removal nor the election wrote
  EXPECT_EQ(st.version, 0);
}

TEST_F(StateWrites, EveryControllerWriteChecksTheEpochZnode) {
  start_broker(1);
  start_controller(1);
  settle();
  ASSERT_TRUE(ctl(1).is_active());
  ControllerZk zk(*nodes[1]->session);
  zk.set_epoch_zk_version(ctl(1).context().epoch_zk_version);
  LeaderAndIsr s{1, 0, {1}, LeaderRecoveryState::kRecovered, 0};
  int32_t v = -1;
  // No topic znode: the parents cannot be made.
  EXPECT_EQ(zk.create_partition_state(TopicPartition("x", 0), s, 1, &v), ZkWrite::kNoNode);
  EXPECT_FALSE(zk.fenced());
  create_topic("x", {{0, {1}}});
  ASSERT_EQ(zk.create_partition_state(TopicPartition("x", 0), s, 1, &v), ZkWrite::kOk);
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(exists("/brokers/topics/x/partitions/0/state"));
  // Wrong partition version, right epoch: kBadVersion, not fenced.
  s.partition_epoch = 5;
  EXPECT_EQ(zk.update_partition_state(TopicPartition("x", 0), s, 1, &v), ZkWrite::kBadVersion);
  EXPECT_FALSE(zk.fenced());
  // Another controller moves the epoch: fenced, and stays fenced.
  ASSERT_TRUE(admin.set("/controller_epoch", "2").is_ok());
  s.partition_epoch = 0;
  EXPECT_EQ(zk.update_partition_state(TopicPartition("x", 0), s, 1, &v), ZkWrite::kControllerMoved);
  EXPECT_TRUE(zk.fenced());
  EXPECT_EQ(zk.delete_topic_deletion("x"), ZkWrite::kControllerMoved);
  EXPECT_EQ(zk_state("x", 0).version, 0);
}

}  // namespace
}  // namespace spool::cluster::controller
