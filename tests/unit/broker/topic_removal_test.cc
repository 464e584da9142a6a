// Removing a topic's logs (ReplicaManager::delete_topic, and the undo of a
// create_topic that failed half-way; LogManager::remove_topic under both):
// every partition dir goes and the checkpoints no longer name the topic. The
// failed creation is made real by running out of file descriptors part way
// through a large topic, the case fuzz_dispatcher found taking hours to undo
// when every partition rewrote the checkpoints on its own.
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <filesystem>
#include <memory>
#include <string>

#include "broker/replica_manager.h"
#include "common/temp_dir.h"
#include "protocol/error_code.h"
#include "registry_test_support.h"
#include "storage/checkpoint.h"
#include "storage/log_manager.h"

namespace spool::broker {
namespace {

namespace fs = std::filesystem;

class TopicRemovalTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::off); }  // a failure per partition is logged
  static void TearDownTestSuite() { spdlog::set_level(spdlog::level::info); }

  void SetUp() override {
    settings_.log_dirs = {dir_.path()};
    storage::LogManager::Options lo;
    lo.log_dirs = settings_.log_dirs;
    lo.defaults = log_config_for(settings_, {});
    lo.defaults.segment_index_bytes = 4096;
    auto logs = storage::LogManager::open(lo);
    ASSERT_TRUE(logs) << logs.status().message();
    logs_ = std::move(logs.value());
    auto reg = open_test_registry(dir_.path(), store_);
    ASSERT_TRUE(reg) << reg.status().message();
    registry_ = std::move(reg.value());
    replicas_ = std::make_unique<ReplicaManager>(settings_, *registry_, *logs_);
    ASSERT_TRUE(replicas_->load());
  }
  void TearDown() override {
    replicas_.reset();
    if (logs_) logs_->shutdown();
  }

  int partition_dirs(const std::string& topic) const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_.path()))
      if (e.path().filename().string().starts_with(topic + "-")) ++n;
    return n;
  }
  int checkpointed(const std::string& topic) const {
    auto m = storage::read_offset_checkpoint(dir_.sub(storage::kRecoveryPointCheckpoint));
    EXPECT_TRUE(m) << m.status().message();
    int n = 0;
    for (const auto& [tp, offset] : *m) n += tp.topic == topic;
    return n;
  }

  test_support::TempDir dir_{"spool-topic-removal"};
  BrokerSettings settings_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<cluster::EmbeddedStore> store_;
  std::unique_ptr<TopicRegistry> registry_;
  std::unique_ptr<ReplicaManager> replicas_;
};

TEST_F(TopicRemovalTest, DeletingATopicRemovesEveryPartitionAndItsCheckpointLines) {
  ASSERT_TRUE(replicas_->create_topic("keep", 2, {}, false));
  ASSERT_TRUE(replicas_->create_topic("big", 300, {}, false));
  ASSERT_TRUE(logs_->write_checkpoints());
  ASSERT_EQ(checkpointed("big"), 300);
  ASSERT_EQ(partition_dirs("big"), 300);

  ASSERT_TRUE(replicas_->delete_topic("big"));
  EXPECT_EQ(partition_dirs("big"), 0);
  EXPECT_EQ(checkpointed("big"), 0);
  EXPECT_EQ(checkpointed("keep"), 2);
  EXPECT_EQ(logs_->get("big", 0), nullptr);
  EXPECT_NE(logs_->get("keep", 1), nullptr);
}

TEST_F(TopicRemovalTest, ACreationThatRunsOutOfFileDescriptorsIsUndoneWhole) {
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  int open_now = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++open_now;
  rlimit tight = before;
  tight.rlim_cur = static_cast<rlim_t>(open_now + 200);  // each partition keeps its segment open
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &tight), 0);
  auto created = replicas_->create_topic("huge", 1000, {}, false);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &before), 0);

  ASSERT_FALSE(created);
  EXPECT_EQ(created.status().kafka_code(), static_cast<int16_t>(protocol::ErrorCode::kKafkaStorageError));
  EXPECT_EQ(partition_dirs("huge"), 0);
  EXPECT_EQ(checkpointed("huge"), 0);
  EXPECT_FALSE(replicas_->topic("huge").has_value());
  // Nothing left in the way: the name can be created again.
  auto again = replicas_->create_topic("huge", 3, {}, false);
  ASSERT_TRUE(again) << again.status().message();
  EXPECT_EQ(partition_dirs("huge"), 3);
}

}  // namespace
}  // namespace spool::broker
