// DelayedProduce against a real log and flusher: completes once the high
// watermark (the fsynced offset, durable.writes) reaches the offset after the
// batch, answers KAFKA_STORAGE_ERROR when the fsync failed, and expires with
// REQUEST_TIMED_OUT when it is not in time. Also Partition's
// check_enough_replicas_reach_offset, every branch.
#include "broker/delayed_produce.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "record/batch_builder.h"
#include "storage/log_manager.h"
#include "timer/clock.h"
#include "timer/purgatory.h"

namespace spool::broker {
namespace {

class DelayedProduceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("spool-dp-" + std::to_string(std::random_device{}()));
    storage::LogManager::Options o;
    o.log_dirs = {dir_.string()};
    auto lm = storage::LogManager::open(o);
    ASSERT_TRUE(lm) << lm.status().message();
    logs_ = std::move(*lm);
    auto log = logs_->create("t", 0, storage::LogConfig{});
    ASSERT_TRUE(log);
    // The high-watermark listener counts wake-ups; with wake_purgatory_ it
    // also wakes the purgatory, as ReplicaManager's does (off by default so
    // the other tests drive check_and_complete themselves, race-free).
    partition_ = std::make_shared<Partition>("t", 0, *log, logs_->flusher(), /*durable_writes=*/true,
                                             [this](const TopicPartition& key) {
                                               ++wakeups_;
                                               if (wake_purgatory_.load() && purgatory_)
                                                 purgatory_->check_and_complete(key);
                                             });
    timer::PurgatoryOptions po;
    po.clock = clock_;
    po.start_reaper = false;
    purgatory_ = std::make_unique<timer::Purgatory<TopicPartition>>(po);
  }
  void TearDown() override {
    purgatory_->shutdown(false);
    logs_->shutdown();
    std::filesystem::remove_all(dir_);
  }

  // Appends one batch; returns its last offset.
  int64_t append_one() {
    record::BatchOptions bo;
    record::BuildRecord r;
    r.value = Bytes{'v'};
    auto batch = record::build_batch(bo, std::span<const record::BuildRecord>(&r, 1));
    EXPECT_TRUE(batch);
    auto res = partition_->append(std::span<uint8_t>(batch->data(), batch->size()), 1);
    EXPECT_TRUE(res);
    return res->last_offset;
  }

  // A DelayedProduce with one partition answer waiting for last_offset; its
  // callback stores the answer in answered_.
  std::shared_ptr<DelayedProduce> make_op(int64_t last_offset, int64_t timeout_ms) {
    std::vector<ProduceResult> results(1);
    results[0].base_offset = last_offset;
    auto op = std::make_shared<DelayedProduce>(timeout_ms, std::move(results), [this](std::vector<ProduceResult> r) {
      ++calls_;
      answered_ = std::move(r);
    });
    op->add_wait(partition_, last_offset + 1, 0);
    return op;
  }
  // The error code answered (the callback ran exactly once with one result).
  int16_t answer(DelayedProduce&) {
    EXPECT_EQ(calls_, 1);
    EXPECT_EQ(answered_.size(), 1u);
    return answered_.empty() ? -100 : protocol::to_int(answered_[0].error);
  }

  std::filesystem::path dir_;
  std::unique_ptr<storage::LogManager> logs_;
  std::shared_ptr<Partition> partition_;
  std::shared_ptr<timer::ManualClock> clock_ = std::make_shared<timer::ManualClock>(1000);
  std::unique_ptr<timer::Purgatory<TopicPartition>> purgatory_;
  int calls_ = 0;
  std::atomic<int> wakeups_{0};
  std::atomic<bool> wake_purgatory_{false};
  std::vector<ProduceResult> answered_;
};

TEST_F(DelayedProduceTest, CompletesWhenTheDataIsFsynced) {
  int64_t last = append_one();
  ASSERT_TRUE(partition_->log().flush());
  auto op = make_op(last, 30000);
  EXPECT_TRUE(purgatory_->try_complete_else_watch(op, op->keys()));
  EXPECT_TRUE(op->is_completed());
  EXPECT_EQ(answer(*op), 0);
}

TEST_F(DelayedProduceTest, WaitsThenCompletesOnTheFlushersSignal) {
  int64_t last = append_one();
  // An offset the log has not reached yet cannot be durable: the op must wait.
  auto op = make_op(last + 1, 30000);
  EXPECT_FALSE(purgatory_->try_complete_else_watch(op, op->keys()));
  EXPECT_FALSE(op->is_completed());
  int64_t last2 = append_one();
  ASSERT_EQ(last2, last + 1);
  ASSERT_TRUE(partition_->log().flush());
  EXPECT_EQ(purgatory_->check_and_complete(partition_->key()), 1);
  EXPECT_TRUE(op->is_completed());
  EXPECT_EQ(answer(*op), 0);
}

TEST_F(DelayedProduceTest, ExpiresWithRequestTimedOut) {
  int64_t last = append_one();
  auto op = make_op(last + 100, 50);  // never durable in time
  EXPECT_FALSE(purgatory_->try_complete_else_watch(op, op->keys()));
  clock_->advance(49);
  purgatory_->advance_clock(0);
  EXPECT_FALSE(op->is_completed());
  clock_->advance(5);
  purgatory_->advance_clock(0);
  EXPECT_TRUE(op->is_completed());
  EXPECT_EQ(answer(*op), 7);  // REQUEST_TIMED_OUT
}

TEST_F(DelayedProduceTest, CheckReachOffsetFollowsTheHighWatermark) {
  int64_t last = append_one();
  ASSERT_TRUE(partition_->log().flush());
  ASSERT_EQ(partition_->high_watermark(), last + 1);
  auto at = partition_->check_enough_replicas_reach_offset(last + 1);
  EXPECT_TRUE(at.reached);
  EXPECT_EQ(at.error, protocol::ErrorCode::kNone);
  auto beyond = partition_->check_enough_replicas_reach_offset(last + 2);
  EXPECT_FALSE(beyond.reached);
  EXPECT_EQ(beyond.error, protocol::ErrorCode::kNone);
}

TEST_F(DelayedProduceTest, FailedFsyncAnswersStorageError) {
  int64_t durable_last = append_one();
  ASSERT_TRUE(partition_->log().flush());
  // A stopped flusher answers every new waiter with an error at once: the
  // append's fsync request fails, and the partition remembers it.
  logs_->flusher().stop();
  const int before = wakeups_.load();
  int64_t last = append_one();
  EXPECT_GT(wakeups_.load(), before);  // the failure woke the listener
  auto c = partition_->check_enough_replicas_reach_offset(last + 1);
  EXPECT_FALSE(c.reached);
  EXPECT_EQ(c.error, protocol::ErrorCode::kKafkaStorageError);
  // What was durable before the failure still counts as reached.
  auto earlier = partition_->check_enough_replicas_reach_offset(durable_last + 1);
  EXPECT_TRUE(earlier.reached);
  EXPECT_EQ(earlier.error, protocol::ErrorCode::kNone);
  // Offsets after the failed one were never asked for: still waiting.
  auto later = partition_->check_enough_replicas_reach_offset(last + 2);
  EXPECT_FALSE(later.reached);
  EXPECT_EQ(later.error, protocol::ErrorCode::kNone);
  auto op = make_op(last, 30000);
  EXPECT_TRUE(purgatory_->try_complete_else_watch(op, op->keys()));
  EXPECT_EQ(answer(*op), 56);  // KAFKA_STORAGE_ERROR
  EXPECT_EQ(answered_[0].error_message, "fsync failed");
}

TEST_F(DelayedProduceTest, ListenerCompletesAParkedProduce) {
  // The flusher's own pass (no manual flush) moves the high watermark and
  // the partition's listener completes the op; bounded wait.
  wake_purgatory_ = true;
  int64_t last = append_one();
  auto op = make_op(last + 1, 30000);  // the next append's offset
  EXPECT_FALSE(purgatory_->try_complete_else_watch(op, op->keys()));
  append_one();
  for (int i = 0; i < 500 && !op->is_completed(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(op->is_completed());
  EXPECT_EQ(answer(*op), 0);
}

}  // namespace
}  // namespace spool::broker
