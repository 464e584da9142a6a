// DelayedProduce against a real log and flusher: completes once the data is
// fsynced, and expires with REQUEST_TIMED_OUT when it is not in time.
#include "broker/delayed_produce.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

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
    partition_ = std::make_shared<Partition>("t", 0, *log, logs_->flusher(), /*durable_writes=*/true);
    timer::PurgatoryOptions po;
    po.clock = clock_;
    po.start_reaper = false;
    purgatory_ = std::make_unique<timer::Purgatory>(po);
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
    op->add_wait(partition_, last_offset, 0);
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
  std::unique_ptr<timer::Purgatory> purgatory_;
  int calls_ = 0;
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

}  // namespace
}  // namespace spool::broker
