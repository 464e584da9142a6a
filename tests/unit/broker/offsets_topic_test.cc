// OffsetsTopic (the broker's OffsetsLog over __consumer_offsets) and
// GroupService over a real LogManager/TopicRegistry in a temp dir: the topic
// is created once with the offsets.topic.* settings, appends come back in
// order on replay (tombstones as nullopt, control batches skipped), the
// partition count survives a restart with other settings, the internal topic
// cannot be deleted or grown, and committed offsets survive a restart through
// the coordinator's replay.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <random>
#include <string>

#include "broker/group_service.h"
#include "broker/offsets_topic.h"
#include "broker/replica_manager.h"
#include "protocol/error_code.h"
#include "record/batch_builder.h"
#include "registry_test_support.h"

namespace spool::broker {
namespace {

using coordinator::LogRecord;
using protocol::ErrorCode;

int16_t code(ErrorCode c) { return static_cast<int16_t>(c); }
Bytes bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }
std::string str(const Bytes& b) { return std::string(b.begin(), b.end()); }

class OffsetsTopicTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("spool-offsets-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
    settings_.log_dirs = {dir_.string()};
    settings_.offsets_topic_num_partitions = 3;
    settings_.offsets_topic_segment_bytes = 1 << 20;
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
    ASSERT_TRUE(reg) << reg.status().message();
    registry_ = std::move(reg.value());
    replicas_ = std::make_unique<ReplicaManager>(settings_, *registry_, *logs_);
    ASSERT_TRUE(replicas_->load());
  }
  void close() {
    replicas_.reset();
    if (logs_) logs_->shutdown();
    logs_.reset();
    registry_.reset();
    store_.reset();
  }
  static Status append_sync(OffsetsTopic& t, int32_t partition, std::vector<LogRecord> records) {
    auto promise = std::make_shared<std::promise<Status>>();
    auto future = promise->get_future();
    t.append(partition, std::move(records), [promise](Status s) { promise->set_value(std::move(s)); });
    if (future.wait_for(std::chrono::seconds(30)) != std::future_status::ready)
      return Status::error("append never completed");
    return future.get();
  }
  static std::vector<LogRecord> replay(OffsetsTopic& t, int32_t partition) {
    std::vector<LogRecord> out;
    Status s = t.read_all(partition, [&out](const LogRecord& r) { out.push_back(r); });
    EXPECT_TRUE(s) << s.message();
    return out;
  }

  std::filesystem::path dir_;
  BrokerSettings settings_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<cluster::EmbeddedStore> store_;
  std::unique_ptr<TopicRegistry> registry_;
  std::unique_ptr<ReplicaManager> replicas_;
};

TEST_F(OffsetsTopicTest, CreatedOnceCompactedWithConfiguredPartitions) {
  OffsetsTopic t(settings_, *replicas_);
  EXPECT_FALSE(t.exists());
  EXPECT_EQ(t.partition_count(), 3);
  auto first = t.ensure_created();
  ASSERT_TRUE(first) << first.status().message();
  EXPECT_TRUE(*first);
  auto second = t.ensure_created();
  ASSERT_TRUE(second);
  EXPECT_FALSE(*second);
  auto info = replicas_->topic(kOffsetsTopic);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->partitions, 3);
  EXPECT_EQ(info->configs.at("cleanup.policy"), "compact");
  EXPECT_EQ(info->configs.at("segment.bytes"), std::to_string(1 << 20));
  EXPECT_NE(replicas_->partition(kOffsetsTopic, 2), nullptr);
}

TEST_F(OffsetsTopicTest, AppendThenReplayInOrderWithTombstones) {
  OffsetsTopic t(settings_, *replicas_);
  ASSERT_TRUE(t.ensure_created());
  ASSERT_TRUE(append_sync(t, 1, {{bytes("k1"), bytes("v1")}, {bytes("k2"), std::nullopt}}));
  ASSERT_TRUE(append_sync(t, 1, {{bytes("k1"), bytes("v1b")}}));
  ASSERT_TRUE(append_sync(t, 1, {}));  // nothing to write still answers
  auto got = replay(t, 1);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(str(got[0].key), "k1");
  ASSERT_TRUE(got[0].value);
  EXPECT_EQ(str(*got[0].value), "v1");
  EXPECT_EQ(str(got[1].key), "k2");
  EXPECT_FALSE(got[1].value) << "a null value is a tombstone";
  EXPECT_EQ(str(*got[2].value), "v1b");
  EXPECT_TRUE(replay(t, 0).empty()) << "other partitions untouched";
}

TEST_F(OffsetsTopicTest, ReplaySkipsControlBatches) {
  OffsetsTopic t(settings_, *replicas_);
  ASSERT_TRUE(t.ensure_created());
  ASSERT_TRUE(append_sync(t, 0, {{bytes("a"), bytes("1")}}));
  record::BatchOptions opts;
  opts.control = true;
  std::vector<record::BuildRecord> marker = {record::BuildRecord::of(std::string_view("\0\0\0\1", 4), "x")};
  auto batch = record::build_batch(opts, marker);
  ASSERT_TRUE(batch) << batch.status().message();
  auto part = replicas_->partition(kOffsetsTopic, 0);
  auto marked = part->append(std::span<uint8_t>(batch->data(), batch->size()), 1);
  ASSERT_TRUE(marked) << marked.status().message();
  ASSERT_TRUE(append_sync(t, 0, {{bytes("b"), bytes("2")}}));
  auto got = replay(t, 0);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(str(got[0].key), "a");
  EXPECT_EQ(str(got[1].key), "b");
}

TEST_F(OffsetsTopicTest, ErrorsCarryKafkaCodes) {
  settings_.message_max_bytes = 300;
  close();
  open();
  OffsetsTopic t(settings_, *replicas_);
  // Before the topic exists, appends cannot land anywhere.
  Status missing = append_sync(t, 0, {{bytes("k"), bytes("v")}});
  EXPECT_FALSE(missing);
  EXPECT_EQ(missing.kafka_code(), code(ErrorCode::kCoordinatorNotAvailable));
  ASSERT_TRUE(t.ensure_created());
  Status bad_partition = append_sync(t, 3, {{bytes("k"), bytes("v")}});
  EXPECT_EQ(bad_partition.kafka_code(), code(ErrorCode::kCoordinatorNotAvailable));
  Status too_big = append_sync(t, 0, {{bytes("k"), Bytes(1000, 'x')}});
  EXPECT_EQ(too_big.kafka_code(), code(ErrorCode::kRecordListTooLarge));
  EXPECT_TRUE(replay(t, 0).empty()) << "a refused batch must not be half-written";
  EXPECT_FALSE(t.read_all(9, [](const LogRecord&) {}));
}

TEST_F(OffsetsTopicTest, PartitionCountOfExistingTopicWinsAfterRestart) {
  {
    OffsetsTopic t(settings_, *replicas_);
    ASSERT_TRUE(t.ensure_created());
    ASSERT_TRUE(append_sync(t, 2, {{bytes("g"), bytes("x")}}));
  }
  close();
  settings_.offsets_topic_num_partitions = 7;
  open();
  OffsetsTopic t(settings_, *replicas_);
  EXPECT_TRUE(t.exists());
  EXPECT_EQ(t.partition_count(), 3);
  auto got = replay(t, 2);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(str(got[0].key), "g");
}

TEST_F(OffsetsTopicTest, InternalTopicCannotBeDeletedOrGrown) {
  OffsetsTopic t(settings_, *replicas_);
  ASSERT_TRUE(t.ensure_created());
  Status del = replicas_->delete_topic(kOffsetsTopic);
  EXPECT_FALSE(del);
  EXPECT_EQ(del.kafka_code(), code(ErrorCode::kInvalidTopicException));
  auto grow = replicas_->create_partitions(kOffsetsTopic, 10, false);
  EXPECT_FALSE(grow);
  EXPECT_EQ(grow.status().kafka_code(), code(ErrorCode::kInvalidRequest));
  EXPECT_EQ(replicas_->topic(kOffsetsTopic)->partitions, 3);
}

// Through the real coordinator: a commit is durable in __consumer_offsets and
// a restarted service (background load) serves it again.
TEST_F(OffsetsTopicTest, GroupServiceCommitSurvivesRestart) {
  ASSERT_TRUE(replicas_->create_topic("orders", 2, {}, false));
  auto opts = group_coordinator_options(settings_);
  opts.start_reaper = false;
  {
    GroupService groups(settings_, *replicas_, opts);
    groups.start();  // no topic yet: nothing to load
    EXPECT_FALSE(replicas_->topic(kOffsetsTopic));
    ASSERT_EQ(groups.ensure_offsets_topic(), ErrorCode::kNone);
    EXPECT_TRUE(groups.all_partitions_loaded());
    EXPECT_EQ(groups.coordinator().coordinator_status("g1"), ErrorCode::kNone);
    coordinator::OffsetCommitParams p;
    p.group_id = "g1";
    p.offsets.push_back({{"orders", 1}, 42, -1, std::string("meta")});
    auto promise = std::make_shared<std::promise<coordinator::PartitionErrors>>();
    auto future = promise->get_future();
    groups.coordinator().commit_offsets(p, [promise](coordinator::PartitionErrors e) { promise->set_value(e); });
    ASSERT_EQ(future.wait_for(std::chrono::seconds(30)), std::future_status::ready);
    auto errors = future.get();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].second, ErrorCode::kNone);
    groups.shutdown();
  }
  close();
  open();
  GroupService groups(settings_, *replicas_, opts);
  groups.start();
  for (int i = 0; i < 3000 && !groups.all_partitions_loaded(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(groups.all_partitions_loaded());
  auto fetched = groups.coordinator().fetch_offsets("g1", std::nullopt, false);
  EXPECT_EQ(fetched.error, ErrorCode::kNone);
  ASSERT_EQ(fetched.offsets.size(), 1u);
  EXPECT_EQ(fetched.offsets[0].tp.topic, "orders");
  EXPECT_EQ(fetched.offsets[0].tp.partition, 1);
  EXPECT_EQ(fetched.offsets[0].offset, 42);
  EXPECT_EQ(fetched.offsets[0].metadata.value_or(""), "meta");
}

}  // namespace
}  // namespace spool::broker
