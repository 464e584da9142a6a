// ReplicaManager in cluster mode over real logs in a temp dir: LeaderAndIsr
// and StopReplica per-partition rules (leader epoch newer, not a replica,
// partition epoch skip, FENCED_LEADER_EPOCH, delete), the epoch stamp on
// becoming leader, parked acks=all produces and fetches failing on becoming
// follower, and the leader's handling of follower fetches (follower state,
// ISR expand proposal, high watermark, acks=all completion,
// NOT_ENOUGH_REPLICAS, reading past the high watermark).
// durable.writes=false keeps the high watermark synchronous (the fsync-counted
// rule is ReplicaSet's, tested in tests/unit/replica).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "broker/replica_manager.h"
#include "protocol/error_code.h"
#include "record/batch_builder.h"
#include "storage/checkpoint.h"
#include "registry_test_support.h"

namespace spool::broker {
namespace {

using protocol::ErrorCode;

class ReplicationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("spool-repl-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
    settings_.log_dirs = {dir_.string()};
    settings_.topic_defaults->set("durable.writes", "false");
    settings_.topic_defaults->set("min.insync.replicas", "2");
    open();
  }
  void TearDown() override {
    close();
    std::filesystem::remove_all(dir_);
  }
  void open() {
    storage::LogManager::Options lo;
    lo.log_dirs = settings_.log_dirs;
    lo.defaults = log_config_for(settings_, {});
    auto logs = storage::LogManager::open(lo);
    ASSERT_TRUE(logs) << logs.status().message();
    logs_ = std::move(logs.value());
    auto reg = open_test_registry(dir_, store_);
    ASSERT_TRUE(reg);
    registry_ = std::move(reg.value());
    ReplicaManager::PurgatoryConfig pc;
    pc.fetch.start_reaper = false;
    pc.produce.start_reaper = false;
    replicas_ = std::make_unique<ReplicaManager>(settings_, *registry_, *logs_, std::move(pc));
    ReplicaManager::ClusterHooks hooks;
    hooks.local_broker_id = 1;
    hooks.replica_lag_time_max_ms = 10000;
    hooks.now_ms = [this] { return now_; };
    hooks.isr_sink = [this](const std::shared_ptr<Partition>&, const replica::IsrChange& c) { changes_.push_back(c); };
    hooks.start_following = [this](const std::shared_ptr<Partition>& p, int32_t leader,
                                   const std::vector<cluster::LiveLeaderEndpoint>&) {
      following_.push_back({p->key(), leader});
    };
    hooks.stop_following = [this](const TopicPartition& tp) { stopped_.push_back(tp); };
    replicas_->enable_cluster_mode(std::move(hooks));
    ASSERT_TRUE(replicas_->load());
  }
  void close() {
    if (replicas_) replicas_->shutdown();
    replicas_.reset();
    if (logs_) logs_->shutdown();
    logs_.reset();
    registry_.reset();
    store_.reset();
  }

  cluster::LeaderAndIsrCommand lai(int32_t leader, int32_t leader_epoch, int32_t partition_epoch,
                                   std::vector<int32_t> isr, std::vector<int32_t> replicas = {1, 2, 3}) {
    cluster::LeaderAndIsrCommand c;
    cluster::LeaderAndIsrPartitionCommand p;
    p.partition = tp_;
    p.topic_id = id_;
    p.leader = leader;
    p.leader_epoch = leader_epoch;
    p.partition_epoch = partition_epoch;
    p.isr = std::move(isr);
    p.replicas = std::move(replicas);
    c.partitions.push_back(p);
    return c;
  }
  ErrorCode apply(const cluster::LeaderAndIsrCommand& c) {
    auto out = replicas_->become_leader_or_follower(c, 1);
    EXPECT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].partition, tp_);
    return out[0].error;
  }

  // Produces one record with `acks`; returns the answer (or nullopt if parked).
  std::optional<ProduceResult> produce(int16_t acks) {
    record::BatchOptions bo;
    record::BuildRecord r;
    r.value = Bytes{'v'};
    auto batch = record::build_batch(bo, std::span<const record::BuildRecord>(&r, 1));
    EXPECT_TRUE(batch);
    batches_.push_back(std::move(*batch));
    ProduceEntry e;
    e.tp = tp_;
    e.batches = std::span<uint8_t>(batches_.back().data(), batches_.back().size());
    auto out = std::make_shared<std::optional<ProduceResult>>();
    replicas_->append_records(acks, 30000, {e}, [out](std::vector<ProduceResult> r) { *out = r.at(0); });
    last_answer_ = out;
    return *out;
  }

  // A follower's fetch at `offset`; the single result.
  FetchPartitionResult follower_fetch(int32_t replica, int64_t offset, int32_t last_epoch = -1, int32_t epoch = -1) {
    FetchParams fp;
    fp.replica_id = replica;
    fp.max_wait_ms = 0;
    fp.max_bytes = 1 << 20;
    FetchPartitionWanted w;
    w.topic = tp_.topic;
    w.partition = tp_.partition;
    w.fetch_offset = offset;
    w.max_bytes = 1 << 20;
    w.current_leader_epoch = epoch;
    w.last_fetched_epoch = last_epoch;
    fp.partitions.push_back(w);
    FetchPartitionResult result;
    replicas_->fetch_messages(fp, [&result](std::vector<FetchPartitionResult> r) { result = r.at(0); });
    return result;
  }

  std::filesystem::path dir_;
  BrokerSettings settings_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<cluster::EmbeddedStore> store_;
  std::unique_ptr<TopicRegistry> registry_;
  std::unique_ptr<ReplicaManager> replicas_;
  TopicPartition tp_{"orders", 0};
  TopicId id_{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  int64_t now_ = 10'000'000;  // far past replica.lag.time.max.ms from 0 (never-fetched followers are not caught up)
  std::vector<replica::IsrChange> changes_;
  std::vector<std::pair<TopicPartition, int32_t>> following_;
  std::vector<TopicPartition> stopped_;
  std::vector<Bytes> batches_;
  std::shared_ptr<std::optional<ProduceResult>> last_answer_;
};

TEST_F(ReplicationTest, LeaderAndIsrCreatesThePartitionWithTheTopicIdAndStampsTheEpoch) {
  ASSERT_EQ(apply(lai(1, 5, 7, {1, 2, 3})), ErrorCode::kNone);
  auto p = replicas_->partition(tp_);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->role(), Partition::Role::kLeader);
  EXPECT_EQ(p->leader_epoch(), 5);
  EXPECT_EQ(p->partition_epoch(), 7);
  EXPECT_EQ(p->topic_id(), id_);
  auto info = registry_->get("orders");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->id, id_);
  EXPECT_EQ(info->partitions, 1);
  // KIP-279: (5, 0) is in the epoch cache before any batch of epoch 5.
  EXPECT_EQ(p->log().end_offset_for_epoch(5), std::make_pair(5, int64_t{0}));
  auto pm = storage::read_partition_metadata(p->log().dir());
  ASSERT_TRUE(pm);
  ASSERT_TRUE(pm->has_value());
  EXPECT_EQ(**pm, id_);
}

TEST_F(ReplicationTest, EpochRules) {
  ASSERT_EQ(apply(lai(1, 5, 7, {1, 2, 3})), ErrorCode::kNone);
  EXPECT_EQ(apply(lai(2, 5, 8, {1, 2, 3})), ErrorCode::kStaleControllerEpoch);  // same leader epoch
  EXPECT_EQ(apply(lai(2, 4, 8, {1, 2, 3})), ErrorCode::kStaleControllerEpoch);  // older
  EXPECT_EQ(replicas_->partition(tp_)->role(), Partition::Role::kLeader);
  // Newer leader epoch but a partition epoch below ours: skipped (NONE, unchanged).
  EXPECT_EQ(apply(lai(2, 6, 6, {2, 3})), ErrorCode::kNone);
  EXPECT_EQ(replicas_->partition(tp_)->role(), Partition::Role::kLeader);
  // Not among the replicas.
  EXPECT_EQ(apply(lai(2, 9, 9, {2, 3}, {2, 3, 4})), ErrorCode::kUnknownTopicOrPartition);
  // A newer one naming broker 2: follower, fetching from 2.
  EXPECT_EQ(apply(lai(2, 6, 8, {1, 2, 3})), ErrorCode::kNone);
  auto p = replicas_->partition(tp_);
  EXPECT_EQ(p->role(), Partition::Role::kFollower);
  EXPECT_EQ(p->leader_id(), 2);
  EXPECT_EQ(p->leader_epoch(), 6);
  ASSERT_EQ(following_.size(), 1u);
  EXPECT_EQ(following_[0], std::make_pair(tp_, 2));
}

TEST_F(ReplicationTest, InconsistentTopicIdIsRefused) {
  ASSERT_EQ(apply(lai(1, 1, 1, {1, 2, 3})), ErrorCode::kNone);
  auto c = lai(1, 2, 2, {1, 2, 3});
  c.partitions[0].partition.partition = 1;
  c.partitions[0].topic_id[0] = 99;
  auto out = replicas_->become_leader_or_follower(c, 1);
  EXPECT_EQ(out.at(0).error, ErrorCode::kInconsistentTopicId);
}

TEST_F(ReplicationTest, FollowerFetchesMoveTheHighWatermarkAndCompleteAcksAll) {
  ASSERT_EQ(apply(lai(1, 3, 1, {1, 2, 3})), ErrorCode::kNone);
  auto p = replicas_->partition(tp_);
  EXPECT_FALSE(produce(-1).has_value());  // parked: no follower has it yet
  EXPECT_EQ(p->log_end_offset(), 1);
  EXPECT_EQ(p->high_watermark(), 0);
  // A follower fetch reads beyond the high watermark (to the log end).
  auto r = follower_fetch(2, 0);
  EXPECT_EQ(r.error_code, ErrorCode::kNone);
  EXPECT_EQ(r.high_watermark, 0);
  EXPECT_TRUE(r.records && r.records->size() > 0);
  // Follower 2 at 1: not enough (3 is still in the ISR at -1).
  follower_fetch(2, 1);
  EXPECT_EQ(p->high_watermark(), 0);
  EXPECT_FALSE(last_answer_->has_value());
  follower_fetch(3, 1);
  EXPECT_EQ(p->high_watermark(), 1);
  ASSERT_TRUE(last_answer_->has_value());  // woken through the produce purgatory
  EXPECT_EQ((*last_answer_)->error, ErrorCode::kNone);
  EXPECT_EQ((*last_answer_)->base_offset, 0);
  auto rs = p->replica_set();
  ASSERT_TRUE(rs);
  EXPECT_EQ(rs->follower(2)->log_end_offset, 1);
  EXPECT_EQ(rs->follower(3)->log_end_offset, 1);
  EXPECT_TRUE(changes_.empty());
}

TEST_F(ReplicationTest, IsrBelowMinRefusesAcksAllAndExpandIsProposed) {
  ASSERT_EQ(apply(lai(1, 3, 1, {1})), ErrorCode::kNone);
  auto a = produce(-1);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->error, ErrorCode::kNotEnoughReplicas);
  EXPECT_EQ(replicas_->partition(tp_)->log_end_offset(), 0);  // nothing appended
  auto b = produce(1);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->error, ErrorCode::kNone);
  // Strict min-ISR rule: the high watermark stays while the ISR is {1}.
  follower_fetch(2, 1);
  EXPECT_EQ(replicas_->partition(tp_)->high_watermark(), 0);
  ASSERT_EQ(changes_.size(), 1u);
  EXPECT_EQ(changes_[0].kind, replica::IsrChange::Kind::kExpand);
  EXPECT_EQ(changes_[0].new_isr, (std::vector<int32_t>{1, 2}));
  // The controller agrees: ISR {1,2} >= min 2, the high watermark moves.
  replica::AlterPartitionResult res;
  res.leader_id = 1;
  res.leader_epoch = 3;
  res.partition_epoch = 2;
  res.isr = {1, 2};
  EXPECT_EQ(replicas_->partition(tp_)->on_alter_partition_response(changes_[0].id, res),
            replica::AlterOutcome::kCommitted);
  EXPECT_EQ(replicas_->partition(tp_)->high_watermark(), 1);
  EXPECT_EQ(replicas_->partition(tp_)->partition_epoch(), 2);
}

TEST_F(ReplicationTest, IsrShrinkAfterLag) {
  ASSERT_EQ(apply(lai(1, 3, 1, {1, 2, 3})), ErrorCode::kNone);
  ASSERT_TRUE(produce(1));
  follower_fetch(2, 1);
  now_ += 10001;
  follower_fetch(2, 1);
  replicas_->maybe_shrink_isr();
  ASSERT_EQ(changes_.size(), 1u);
  EXPECT_EQ(changes_[0].kind, replica::IsrChange::Kind::kShrink);
  EXPECT_EQ(changes_[0].new_isr, (std::vector<int32_t>{1, 2}));
}

TEST_F(ReplicationTest, BecomingFollowerFailsParkedProduceAndFetch) {
  ASSERT_EQ(apply(lai(1, 3, 1, {1, 2, 3})), ErrorCode::kNone);
  EXPECT_FALSE(produce(-1).has_value());
  // A consumer waiting beyond the high watermark.
  FetchParams fp;
  fp.max_wait_ms = 60000;
  fp.min_bytes = 1;
  fp.max_bytes = 1 << 20;
  FetchPartitionWanted w;
  w.topic = tp_.topic;
  w.fetch_offset = 0;
  w.max_bytes = 1 << 20;
  fp.partitions.push_back(w);
  std::optional<FetchPartitionResult> fetched;
  replicas_->fetch_messages(fp, [&fetched](std::vector<FetchPartitionResult> r) { fetched = r.at(0); });
  EXPECT_FALSE(fetched);
  ASSERT_EQ(apply(lai(2, 4, 2, {2, 3})), ErrorCode::kNone);
  ASSERT_TRUE(last_answer_->has_value());
  EXPECT_EQ((*last_answer_)->error, ErrorCode::kNotLeaderOrFollower);
  ASSERT_TRUE(fetched);
  EXPECT_EQ(fetched->error_code, ErrorCode::kNotLeaderOrFollower);
  // And new work is refused.
  auto a = produce(1);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->error, ErrorCode::kNotLeaderOrFollower);
  EXPECT_EQ(follower_fetch(3, 0).error_code, ErrorCode::kNotLeaderOrFollower);
}

TEST_F(ReplicationTest, FollowerFetchEpochChecksAndDivergence) {
  ASSERT_EQ(apply(lai(1, 3, 1, {1, 2, 3})), ErrorCode::kNone);
  ASSERT_TRUE(produce(1));
  ASSERT_TRUE(produce(1));
  EXPECT_EQ(follower_fetch(2, 0, -1, 2).error_code, ErrorCode::kFencedLeaderEpoch);
  EXPECT_EQ(follower_fetch(2, 0, -1, 4).error_code, ErrorCode::kUnknownLeaderEpoch);
  EXPECT_EQ(follower_fetch(9, 0, -1, 3).error_code, ErrorCode::kUnknownLeaderEpoch);  // not a replica
  // The follower has epoch 2 up to offset 5; the leader's log starts with
  // epoch 3 at 0: diverging at (2, 0), no records.
  auto r = follower_fetch(2, 5, 2, 3);
  EXPECT_EQ(r.error_code, ErrorCode::kNone);
  EXPECT_EQ(r.diverging_epoch.epoch, 2);
  EXPECT_EQ(r.diverging_epoch.end_offset, 0);
  EXPECT_TRUE(!r.records || r.records->size() == 0);
  // In step: epoch 3 ends at the log end, 2.
  auto ok = follower_fetch(2, 2, 3, 3);
  EXPECT_EQ(ok.error_code, ErrorCode::kNone);
  EXPECT_EQ(ok.diverging_epoch.epoch, -1);
}

TEST_F(ReplicationTest, StopReplicaRules) {
  ASSERT_EQ(apply(lai(1, 3, 1, {1, 2, 3})), ErrorCode::kNone);
  cluster::StopReplicaCommand c;
  c.partitions.push_back({tp_, 2, false});
  EXPECT_EQ(replicas_->stop_replicas(c).at(0).error, ErrorCode::kFencedLeaderEpoch);
  EXPECT_EQ(replicas_->partition(tp_)->role(), Partition::Role::kLeader);
  c.partitions[0] = {tp_, cluster::kStopReplicaNoEpoch, false};
  EXPECT_EQ(replicas_->stop_replicas(c).at(0).error, ErrorCode::kNone);
  EXPECT_EQ(replicas_->partition(tp_)->role(), Partition::Role::kFollower);
  ASSERT_FALSE(stopped_.empty());
  const std::string dir = replicas_->partition(tp_)->log().dir();
  c.partitions[0] = {tp_, cluster::kStopReplicaEpochDuringDelete, true};
  EXPECT_EQ(replicas_->stop_replicas(c).at(0).error, ErrorCode::kNone);
  EXPECT_EQ(replicas_->partition(tp_), nullptr);
  EXPECT_FALSE(registry_->get("orders"));
  EXPECT_FALSE(std::filesystem::exists(dir));
  // Unknown partition: NONE.
  EXPECT_EQ(replicas_->stop_replicas(c).at(0).error, ErrorCode::kNone);
}

TEST_F(ReplicationTest, HighWatermarkCheckpointSurvivesRestart) {
  ASSERT_EQ(apply(lai(1, 3, 1, {1, 2})), ErrorCode::kNone);
  ASSERT_TRUE(produce(1));
  ASSERT_TRUE(produce(1));
  follower_fetch(2, 2);
  EXPECT_EQ(replicas_->partition(tp_)->high_watermark(), 2);
  ASSERT_TRUE(replicas_->checkpoint_high_watermarks());
  auto text = storage::read_offset_checkpoint((dir_ / "replication-offset-checkpoint").string());
  ASSERT_TRUE(text);
  EXPECT_EQ(text->at(storage::TopicPartition{"orders", 0}), 2);
  close();
  open();
  // As follower after the restart the high watermark comes from the checkpoint.
  ASSERT_EQ(apply(lai(2, 4, 2, {1, 2})), ErrorCode::kNone);
  EXPECT_EQ(replicas_->partition(tp_)->high_watermark(), 2);
}

}  // namespace
}  // namespace spool::broker
