// ReplicaManager's write and read paths over a real LogManager and
// TopicRegistry in a temp dir: append_records (acks 1 and -1, handler
// verdicts passed through, lookups, min.insync.replicas, empty batches),
// fetch_messages (read at once, park and complete on an append), and
// delete_records; plus Partition::last_offset_for_leader_epoch on an empty
// log. Every wait is bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <random>
#include <thread>

#include "broker/replica_manager.h"
#include "protocol/error_code.h"
#include "record/batch_builder.h"
#include "registry_test_support.h"

namespace spool::broker {
namespace {

using protocol::ErrorCode;

class ReplicaPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("spool-rpaths-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
    settings_.log_dirs = {dir_.string()};
    storage::LogManager::Options lo;
    lo.log_dirs = settings_.log_dirs;
    lo.defaults = log_config_for(settings_, {});
    auto logs = storage::LogManager::open(lo);
    ASSERT_TRUE(logs) << logs.status().message();
    logs_ = std::move(logs.value());
    auto reg = open_test_registry(dir_, store_);
    ASSERT_TRUE(reg) << reg.status().message();
    registry_ = std::move(reg.value());
    replicas_ = std::make_unique<ReplicaManager>(settings_, *registry_, *logs_);
    ASSERT_TRUE(replicas_->load());
    ASSERT_TRUE(replicas_->create_topic("t", 2, {}, false));
  }
  void TearDown() override {
    replicas_.reset();
    logs_->shutdown();
    std::filesystem::remove_all(dir_);
  }

  // One uncompressed batch of `n` records, kept alive in batches_.
  std::span<uint8_t> batch(int n) {
    record::BatchOptions bo;
    std::vector<record::BuildRecord> rs(static_cast<size_t>(n));
    for (auto& r : rs) r.value = Bytes{'v'};
    auto b = record::build_batch(bo, std::span<const record::BuildRecord>(rs.data(), rs.size()));
    EXPECT_TRUE(b);
    batches_.push_back(std::move(*b));
    return std::span<uint8_t>(batches_.back().data(), batches_.back().size());
  }
  ProduceEntry entry(const std::string& topic, int32_t p, std::span<uint8_t> bytes) {
    ProduceEntry e;
    e.tp = TopicPartition(topic, p);
    e.batches = bytes;
    return e;
  }
  // Runs append_records and waits (bounded) for its callback.
  std::vector<ProduceResult> produce(int16_t acks, const std::vector<ProduceEntry>& entries) {
    std::mutex mu;
    std::vector<ProduceResult> out;
    std::atomic<int> calls{0};
    replicas_->append_records(acks, 30000, entries, [&](std::vector<ProduceResult> r) {
      std::lock_guard lk(mu);
      out = std::move(r);
      calls.fetch_add(1);
    });
    for (int i = 0; i < 500 && calls.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(calls.load(), 1);
    std::lock_guard lk(mu);
    return out;
  }

  std::filesystem::path dir_;
  BrokerSettings settings_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<cluster::EmbeddedStore> store_;
  std::unique_ptr<TopicRegistry> registry_;
  std::unique_ptr<ReplicaManager> replicas_;
  std::vector<Bytes> batches_;
};

TEST_F(ReplicaPathsTest, AppendsInEntryOrderAndPassesVerdictsThrough) {
  std::vector<ProduceEntry> es;
  es.push_back(entry("t", 0, batch(3)));
  es.push_back(entry("t", 0, batch(2)));
  es.push_back(entry("t", 7, batch(1)));        // no such partition
  es.push_back(entry("t", 1, {}));              // no batch
  auto refused = entry("t", 1, batch(1));
  refused.error = ErrorCode::kInvalidTopicException;  // the handler's verdict
  refused.error_message = "internal";
  es.push_back(refused);
  auto wrong_id = entry("t", 1, batch(1));
  wrong_id.topic_id = TopicId{};  // all zero: not t's id
  es.push_back(wrong_id);
  auto r = produce(1, es);
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0].error, ErrorCode::kNone);
  EXPECT_EQ(r[0].base_offset, 0);
  EXPECT_EQ(r[0].log_start_offset, 0);
  EXPECT_EQ(r[1].error, ErrorCode::kNone);
  EXPECT_EQ(r[1].base_offset, 3);
  EXPECT_EQ(r[2].error, ErrorCode::kUnknownTopicOrPartition);
  EXPECT_EQ(r[2].log_start_offset, -1);
  EXPECT_EQ(r[3].error, ErrorCode::kCorruptMessage);
  EXPECT_EQ(r[4].error, ErrorCode::kInvalidTopicException);
  EXPECT_EQ(r[4].error_message, "internal");
  EXPECT_EQ(r[5].error, ErrorCode::kInconsistentTopicId);
  EXPECT_EQ(replicas_->partition("t", 0)->log_end_offset(), 5);
  EXPECT_EQ(replicas_->partition("t", 1)->log_end_offset(), 0);  // nothing appended there
}

TEST_F(ReplicaPathsTest, AcksAllAnswersOnceTheHighWatermarkPassesTheBatch) {
  auto r = produce(-1, {entry("t", 0, batch(4))});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].error, ErrorCode::kNone);
  EXPECT_EQ(r[0].base_offset, 0);
  EXPECT_GE(replicas_->partition("t", 0)->high_watermark(), 4);
  EXPECT_EQ(replicas_->produce_purgatory().delayed(), 0);
}

TEST_F(ReplicaPathsTest, AcksAllRefusedBelowMinInsyncReplicasAcksOneIsNot) {
  ASSERT_TRUE(replicas_->create_topic("strict", 1, {{"min.insync.replicas", "2"}}, false));
  auto all = produce(-1, {entry("strict", 0, batch(1))});
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].error, ErrorCode::kNotEnoughReplicas);
  EXPECT_EQ(replicas_->partition("strict", 0)->log_end_offset(), 0);
  auto one = produce(1, {entry("strict", 0, batch(1))});
  EXPECT_EQ(one[0].error, ErrorCode::kNone);
}

TEST_F(ReplicaPathsTest, FetchReadsAtOnceOrParksUntilAnAppend) {
  produce(1, {entry("t", 0, batch(2))});
  auto part = replicas_->partition("t", 0);
  for (int i = 0; i < 500 && part->high_watermark() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(part->high_watermark(), 2);

  FetchParams params;
  params.max_wait_ms = 30000;
  params.min_bytes = 1;
  params.max_bytes = 1 << 20;
  FetchPartitionWanted w;
  w.topic = "t";
  w.partition = 0;
  w.fetch_offset = 0;
  w.max_bytes = 1 << 20;
  params.partitions = {w};
  std::atomic<int> calls{0};
  std::vector<FetchPartitionResult> got;
  replicas_->fetch_messages(params, [&](std::vector<FetchPartitionResult> r) {
    got = std::move(r);
    calls.fetch_add(1);
  });
  ASSERT_EQ(calls.load(), 1);  // data is there: answered on this thread
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].error_code, ErrorCode::kNone);
  EXPECT_EQ(got[0].high_watermark, 2);
  ASSERT_TRUE(got[0].records);
  EXPECT_GT(got[0].records->size(), 0u);

  // At the log end: parked, then completed by the next append's high watermark move.
  params.partitions[0].fetch_offset = 2;
  std::atomic<int> later{0};
  std::vector<FetchPartitionResult> got2;
  replicas_->fetch_messages(params, [&](std::vector<FetchPartitionResult> r) {
    got2 = std::move(r);
    later.fetch_add(1);
  });
  EXPECT_EQ(later.load(), 0);
  EXPECT_EQ(replicas_->fetch_purgatory().delayed(), 1);
  produce(1, {entry("t", 0, batch(1))});
  for (int i = 0; i < 500 && later.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(later.load(), 1);
  ASSERT_EQ(got2.size(), 1u);
  EXPECT_EQ(got2[0].error_code, ErrorCode::kNone);
  EXPECT_EQ(got2[0].high_watermark, 3);

  // An unknown partition is answered at once with its error, whatever min_bytes says.
  params.partitions[0].partition = 9;
  std::atomic<int> third{0};
  replicas_->fetch_messages(params, [&](std::vector<FetchPartitionResult> r) {
    EXPECT_EQ(r.at(0).error_code, ErrorCode::kUnknownTopicOrPartition);
    third.fetch_add(1);
  });
  EXPECT_EQ(third.load(), 1);
}

TEST_F(ReplicaPathsTest, DeleteRecordsMovesTheLogStartUpToTheHighWatermark) {
  produce(1, {entry("t", 0, batch(5))});
  auto part = replicas_->partition("t", 0);
  for (int i = 0; i < 500 && part->high_watermark() < 5; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(part->high_watermark(), 5);
  auto r = replicas_->delete_records({{TopicPartition("t", 0), 2},
                                      {TopicPartition("t", 0), 6},   // above the high watermark
                                      {TopicPartition("t", 0), -2},  // negative, not -1
                                      {TopicPartition("t", 0), 1},   // below the start now: no change
                                      {TopicPartition("nope", 0), 1}});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].error, ErrorCode::kNone);
  EXPECT_EQ(r[0].low_watermark, 2);
  EXPECT_EQ(r[1].error, ErrorCode::kOffsetOutOfRange);
  EXPECT_EQ(r[1].low_watermark, -1);
  EXPECT_EQ(r[2].error, ErrorCode::kOffsetOutOfRange);
  EXPECT_EQ(r[3].error, ErrorCode::kNone);
  EXPECT_EQ(r[3].low_watermark, 2);
  EXPECT_EQ(r[4].error, ErrorCode::kUnknownTopicOrPartition);
  auto hw = replicas_->delete_records({{TopicPartition("t", 0), Partition::kDeleteToHighWatermark}});
  EXPECT_EQ(hw[0].error, ErrorCode::kNone);
  EXPECT_EQ(hw[0].low_watermark, 5);
  EXPECT_EQ(part->log_start_offset(), 5);
}

TEST_F(ReplicaPathsTest, LeaderEpochEndOffsetOfAnEmptyPartition) {
  auto part = replicas_->partition("t", 1);
  ASSERT_NE(part, nullptr);
  const int32_t epoch = part->leader_epoch();
  EXPECT_EQ(part->last_offset_for_leader_epoch(epoch), std::make_pair(epoch, int64_t{0}));
  EXPECT_EQ(part->last_offset_for_leader_epoch(epoch + 5), std::make_pair(-1, int64_t{-1}));
}

}  // namespace
}  // namespace spool::broker
