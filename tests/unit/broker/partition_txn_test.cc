// Partition and transactions: the last stable offset follows the markers
// only once they are durable (the high watermark passes them), and a marker
// wakes parked fetches through the HW listener like an append does.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <random>
#include <thread>

#include "broker/partition.h"
#include "protocol/error_code.h"
#include "record/batch_builder.h"
#include "storage/log_manager.h"

namespace spool::broker {
namespace {

class PartitionTxnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("spool-ptxn-" + std::to_string(std::random_device{}()));
    storage::LogManager::Options o;
    o.log_dirs = {dir_.string()};
    auto lm = storage::LogManager::open(o);
    ASSERT_TRUE(lm) << lm.status().message();
    logs_ = std::move(*lm);
    auto log = logs_->create("t", 0, storage::LogConfig{});
    ASSERT_TRUE(log);
    partition_ = std::make_shared<Partition>("t", 0, *log, logs_->flusher(), /*durable_writes=*/true,
                                             [this](const TopicPartition&) { ++wakeups_; });
  }
  void TearDown() override {
    partition_.reset();
    logs_->shutdown();
    std::filesystem::remove_all(dir_);
  }

  int64_t append_txn(int64_t pid, int32_t seq) {
    record::BatchOptions bo;
    bo.producer_id = pid;
    bo.producer_epoch = 0;
    bo.base_sequence = seq;
    bo.transactional = true;
    record::BuildRecord r;
    r.value = Bytes{'v'};
    auto batch = record::build_batch(bo, std::span<const record::BuildRecord>(&r, 1));
    EXPECT_TRUE(batch);
    auto res = partition_->append(std::span<uint8_t>(batch->data(), batch->size()), 1);
    EXPECT_TRUE(res) << res.status().message();
    return res->last_offset;
  }

  void wait_durable(int64_t offset) {
    std::promise<Status> done;
    partition_->await_durable(offset, [&done](Status s) { done.set_value(s); });
    ASSERT_TRUE(done.get_future().get());
  }

  std::filesystem::path dir_;
  std::unique_ptr<storage::LogManager> logs_;
  std::shared_ptr<Partition> partition_;
  std::atomic<int> wakeups_{0};
};

TEST_F(PartitionTxnTest, LsoFollowsDurableMarkers) {
  int64_t off = append_txn(5, 0);
  wait_durable(off);
  EXPECT_EQ(partition_->high_watermark(), 1);
  EXPECT_EQ(partition_->last_stable_offset(), 0);
  int before = wakeups_.load();
  auto m = partition_->append_txn_marker(5, 0, /*commit=*/true, 2);
  ASSERT_TRUE(m) << m.status().message();
  EXPECT_EQ(m->first_offset, 1);
  // Until the marker is durable the high watermark (and so the LSO) is below it.
  EXPECT_LE(partition_->last_stable_offset(), partition_->high_watermark());
  wait_durable(m->last_offset);
  EXPECT_EQ(partition_->high_watermark(), 2);
  EXPECT_EQ(partition_->last_stable_offset(), 2);
  // The flusher's callback (the fetch purgatory's wake-up) ran for the marker.
  for (int i = 0; i < 1000 && wakeups_.load() == before; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_GT(wakeups_.load(), before);
}

TEST_F(PartitionTxnTest, FencedMarkerIsRefused) {
  append_txn(5, 0);
  ASSERT_TRUE(partition_->append_txn_marker(5, 0, false, 4));
  auto stale = partition_->append_txn_marker(5, 0, true, 3);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.status().kafka_code(), static_cast<int16_t>(protocol::ErrorCode::kTransactionCoordinatorFenced));
  EXPECT_EQ(partition_->log_end_offset(), 2);
}

}  // namespace
}  // namespace spool::broker
