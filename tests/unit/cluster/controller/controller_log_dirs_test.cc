// Log-dir failure (KIP-112) on the controller: /log_dir_event_notification
// events, LeaderAndIsr answers with KAFKA_STORAGE_ERROR, replicas on offline
// dirs in elections, ISRs and UpdateMetadata, and their return after a
// restart. Three brokers on the in-memory store; the controller on broker 2
// (broker 3's takes over in the failover test); broker 1 loses a dir.
#include <gtest/gtest.h>

#include "controller_test_support.h"

namespace spool::cluster::controller {
namespace {

using protocol::ErrorCode;
using testing::ClusterFixture;
using testing::find_partition;
using testing::of_kind;
using V = std::vector<int32_t>;

const TopicPartition kT0("t", 0);
const TopicPartition kT1("t", 1);
const TopicPartition kT2("t", 2);

class ControllerLogDirs : public ClusterFixture {
 protected:
  void SetUp() override {
    for (int32_t b : {1, 2, 3}) start_broker(b);
    // Broker 1 leads t-0 and t-1 and follows t-2.
    create_topic("t", {{0, {1, 2, 3}}, {1, {1, 3, 2}}, {2, {2, 1, 3}}});
    start_controller(2);
    start_controller(3);
    settle();
    ASSERT_TRUE(ctl(2).is_active());
    ASSERT_EQ(zk_state("t", 0).state.leader, 1);
    ASSERT_EQ(zk_state("t", 1).state.leader, 1);
    ASSERT_EQ(zk_state("t", 2).state.leader, 2);
  }

  // What the broker side writes when it loses a log dir.
  void log_dir_event(const std::string& data) {
    auto r = admin.create(zk_paths::log_dir_event_prefix(), data, CreateMode::kPersistentSequential);
    ASSERT_TRUE(r.is_ok()) << r.error().message;
  }
  std::vector<std::string> events() {
    auto kids = admin.children(std::string(zk_paths::kLogDirEventNotification));
    EXPECT_TRUE(kids.is_ok());
    return kids.is_ok() ? kids.value() : std::vector<std::string>{};
  }
  // From now on `broker` answers the LeaderAndIsr requests of the controller
  // on `controller` with KAFKA_STORAGE_ERROR for `offline`, NONE for the
  // other partitions (what a broker with an offline dir does).
  void offline_dirs(int32_t controller, int32_t broker, std::set<TopicPartition> offline,
                    ErrorCode top_level = ErrorCode::kNone) {
    wire(controller).set_responder([=](int32_t to, const ControllerRequest& req) {
      ControllerResponse resp;
      if (to != broker || !std::holds_alternative<LeaderAndIsrRequest>(req)) return resp;
      resp.error = top_level;
      for (const auto& p : std::get<LeaderAndIsrRequest>(req).partition_states) {
        resp.partition_errors.push_back(
            {p.partition, offline.count(p.partition) != 0 ? ErrorCode::kKafkaStorageError : ErrorCode::kNone});
      }
      return resp;
    });
  }
  // The last UpdateMetadata state of tp the controller on c sent to broker `to`.
  std::optional<UpdateMetadataPartition> last_metadata(int32_t c, int32_t to, const TopicPartition& tp) {
    std::optional<UpdateMetadataPartition> out;
    for (const auto& um : of_kind<UpdateMetadataRequest>(wire(c).sent(to))) {
      for (const auto& p : um.partition_states) {
        if (p.partition == tp) out = p;
      }
    }
    return out;
  }
  std::vector<LeaderAndIsrRequest> leader_and_isr(int32_t c, int32_t to) {
    return of_kind<LeaderAndIsrRequest>(wire(c).sent(to));
  }
  ElectionResult elect_preferred(const TopicPartition& tp) {
    std::optional<std::vector<ElectionResult>> got;
    ctl(2).elect_leaders(ElectionType::kPreferred, {tp}, [&](const std::vector<ElectionResult>& r) { got = r; });
    settle();
    EXPECT_TRUE(got && got->size() == 1u);
    return got && !got->empty() ? got->front() : ElectionResult{};
  }
};

TEST_F(ControllerLogDirs, StorageErrorMovesLeadershipShrinksIsrAndShowsTheReplicaOffline) {
  const auto before0 = zk_state("t", 0);
  const auto before1 = zk_state("t", 1);
  const auto before2 = zk_state("t", 2);
  offline_dirs(2, 1, {kT0});
  wire(2).clear();
  log_dir_event(encode_log_dir_event(1));
  settle();

  // t-0 (led by 1, its replica now offline): the next in-sync replica leads,
  // 1 leaves the ISR, the leader epoch moves on.
  auto s0 = zk_state("t", 0);
  EXPECT_EQ(s0.state.leader, 2);
  EXPECT_EQ(s0.state.isr, (V{2, 3}));
  EXPECT_EQ(s0.state.leader_epoch, before0.state.leader_epoch + 1);
  // t-1 (also led by 1, answered NONE) and t-2 (followed by 1) are untouched.
  EXPECT_EQ(zk_state("t", 1).state, before1.state);
  EXPECT_EQ(zk_state("t", 1).version, before1.version);
  EXPECT_EQ(zk_state("t", 2).state, before2.state);

  const auto& ctx = ctl(2).context();
  EXPECT_FALSE(ctx.is_replica_online(1, kT0));
  EXPECT_TRUE(ctx.is_replica_online(1, kT1));
  EXPECT_TRUE(ctx.is_replica_online(1, kT2));
  EXPECT_EQ(ctx.replicas_on_offline_dirs.at(1), (std::set<TopicPartition>{kT0}));
  EXPECT_EQ(ctx.replica_state(PartitionReplica{kT0, 1}), ReplicaState::kOffline);

  // The new leader learns it; broker 1 gets StopReplica (no delete) for t-0.
  bool told_leader = false;
  for (const auto& r : leader_and_isr(2, 2)) {
    if (const auto* p = find_partition(r, kT0)) told_leader = told_leader || p->leader == 2;
  }
  EXPECT_TRUE(told_leader);
  bool stopped = false;
  for (const auto& r : of_kind<StopReplicaRequest>(wire(2).sent(1))) {
    for (const auto& p : r.partitions) {
      if (p.partition == kT0) {
        stopped = true;
        EXPECT_FALSE(p.delete_partition);
      }
    }
  }
  EXPECT_TRUE(stopped);
  // Every live broker's metadata shows replica 1 of t-0 offline.
  for (int32_t b : {1, 2, 3}) {
    auto um = last_metadata(2, b, kT0);
    ASSERT_TRUE(um) << "broker " << b;
    EXPECT_EQ(um->leader, 2);
    EXPECT_EQ(um->isr, (V{2, 3}));
    EXPECT_EQ(um->offline_replicas, V{1}) << "broker " << b;
  }
  // A second event finds nothing new: nothing is elected again.
  log_dir_event(encode_log_dir_event(1));
  settle();
  EXPECT_EQ(zk_state("t", 0).version, s0.version);
  EXPECT_EQ(zk_state("t", 1).state.leader, 1);
}

TEST_F(ControllerLogDirs, TopLevelErrorInTheAnswerChangesNothing) {
  const auto before0 = zk_state("t", 0);
  offline_dirs(2, 1, {kT0}, ErrorCode::kUnknownServerError);
  log_dir_event(encode_log_dir_event(1));
  settle();
  EXPECT_EQ(zk_state("t", 0).state, before0.state);
  EXPECT_TRUE(ctl(2).context().replicas_on_offline_dirs.empty());
  EXPECT_TRUE(events().empty());
}

TEST_F(ControllerLogDirs, EventSendsLeaderAndIsrForAllReplicasOfTheBrokerAndIsDeleted) {
  const auto before0 = zk_state("t", 0);
  wire(2).clear();
  log_dir_event(encode_log_dir_event(1));
  ASSERT_EQ(events().size(), 1u);
  settle();
  EXPECT_TRUE(events().empty());
  auto lai = leader_and_isr(2, 1);
  ASSERT_EQ(lai.size(), 1u);
  EXPECT_EQ(lai[0].partition_states.size(), 3u);
  for (const auto& tp : {kT0, kT1, kT2}) {
    const auto* p = find_partition(lai[0], tp);
    ASSERT_NE(p, nullptr) << tp.to_string();
    EXPECT_EQ(p->leader, zk_state("t", tp.partition).state.leader);
  }
  // Only broker 1 is asked; all its answers are NONE: nothing moves.
  EXPECT_TRUE(leader_and_isr(2, 2).empty());
  EXPECT_TRUE(leader_and_isr(2, 3).empty());
  EXPECT_EQ(zk_state("t", 0).version, before0.version);
  EXPECT_TRUE(ctl(2).context().replicas_on_offline_dirs.empty());
}

TEST_F(ControllerLogDirs, EventsOfDeadBrokersAndMalformedNodesAreDeletedAndChangeNothing) {
  nodes[3]->session->expire();  // broker 3 is gone
  settle();
  ASSERT_TRUE(ctl(2).is_active());
  const auto before0 = zk_state("t", 0);
  const auto before2 = zk_state("t", 2);
  wire(2).clear();
  log_dir_event(encode_log_dir_event(3));  // dead
  log_dir_event(encode_log_dir_event(7));  // never registered
  log_dir_event("not json");
  log_dir_event(R"({"version":1,"broker":1,"event":2})");  // an unknown event kind
  ASSERT_TRUE(admin.create(std::string(zk_paths::kLogDirEventNotification) + "/stray", "", CreateMode::kPersistent)
                  .is_ok());
  settle();
  EXPECT_TRUE(events().empty());
  EXPECT_TRUE(wire(2).all().empty());
  EXPECT_EQ(zk_state("t", 0).version, before0.version);
  EXPECT_EQ(zk_state("t", 2).version, before2.version);
  EXPECT_TRUE(ctl(2).context().replicas_on_offline_dirs.empty());
}

TEST_F(ControllerLogDirs, EventsWrittenBeforeAFailoverAreHandledByTheNewController) {
  offline_dirs(3, 1, {kT1});  // broker 1's answers to the next controller
  log_dir_event(encode_log_dir_event(1));
  nodes[2]->session->expire();  // the controller goes before it sees the event
  settle();
  ASSERT_TRUE(ctl(3).is_active());
  EXPECT_TRUE(events().empty());
  // The failover asks broker 1 about all its replicas...
  bool all = false;
  for (const auto& r : leader_and_isr(3, 1)) {
    all = all || (find_partition(r, kT0) && find_partition(r, kT1) && find_partition(r, kT2));
  }
  EXPECT_TRUE(all);
  // ...and acts on the answer: t-1 (replicas 1, 3, 2; 2 is dead) moves to 3.
  auto s1 = zk_state("t", 1).state;
  EXPECT_EQ(s1.leader, 3);
  EXPECT_EQ(s1.isr, V{3});
  EXPECT_EQ(zk_state("t", 0).state.leader, 1);
  EXPECT_EQ(zk_state("t", 2).state.leader, 1);  // 2 died; 1's replica of t-2 is fine
  EXPECT_FALSE(ctl(3).context().is_replica_online(1, kT1));
  EXPECT_TRUE(ctl(3).context().is_replica_online(1, kT0));
  auto um = last_metadata(3, 1, kT1);
  ASSERT_TRUE(um);
  EXPECT_EQ(um->offline_replicas, (V{1, 2}));
}

TEST_F(ControllerLogDirs, AfterARestartTheBrokersReplicasAreOnlineAgain) {
  offline_dirs(2, 1, {kT0});
  log_dir_event(encode_log_dir_event(1));
  settle();
  ASSERT_EQ(zk_state("t", 0).state.leader, 2);
  // Back in the ISR (the leader's AlterPartition), 1 still cannot lead t-0:
  // its replica is on an offline dir.
  alter_isr(2, "t", 0, {2, 3, 1});
  auto r = elect_preferred(kT0);
  EXPECT_EQ(r.error, ErrorCode::kPreferredLeaderNotAvailable);
  EXPECT_EQ(zk_state("t", 0).state.leader, 2);

  // Broker 1 restarts with its dirs repaired: a new registration (a bounce,
  // seen in one BrokerChange).
  wire(2).set_responder({});
  const int64_t old_epoch = broker_epoch(1);
  nodes[1]->session->expire();
  nodes[1]->session = std::make_unique<MemoryStore>(tree);
  register_broker(1);
  settle();
  ASSERT_GT(broker_epoch(1), old_epoch);
  const auto& ctx = ctl(2).context();
  EXPECT_TRUE(ctx.replicas_on_offline_dirs.empty());
  EXPECT_TRUE(ctx.is_replica_online(1, kT0));
  auto um = last_metadata(2, 2, kT0);
  ASSERT_TRUE(um);
  EXPECT_TRUE(um->offline_replicas.empty());
  // Once in sync again, the preferred election makes it leader.
  alter_isr(2, "t", 0, {2, 3, 1});
  r = elect_preferred(kT0);
  EXPECT_EQ(r.error, ErrorCode::kNone);
  EXPECT_EQ(r.leader, 1);
  EXPECT_EQ(zk_state("t", 0).state.leader, 1);
}

}  // namespace
}  // namespace spool::cluster::controller
