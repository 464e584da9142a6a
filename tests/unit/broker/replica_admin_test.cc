// ReplicaManager admin paths (CreatePartitions, AlterConfigs) over a real
// LogManager and TopicRegistry in a temp dir: counts only grow, the new count
// survives a reopen, and existing partitions keep their objects; altered
// configs are validated, persisted and applied live to the open logs.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "broker/replica_manager.h"
#include "protocol/error_code.h"
#include "record/batch_builder.h"
#include "storage/checkpoint.h"
#include "storage/file_util.h"
#include "registry_test_support.h"

namespace spool::broker {
namespace {

using protocol::ErrorCode;

int16_t code(ErrorCode c) { return static_cast<int16_t>(c); }

class ReplicaAdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("spool-admin-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
    settings_.log_dirs = {dir_.string()};
    open();
  }
  void TearDown() override {
    close();
    std::filesystem::remove_all(dir_);
  }
  void open() {
    open_unloaded();
    ASSERT_TRUE(replicas_->load());
  }
  // Logs, registry and replica manager, before ReplicaManager::load().
  void open_unloaded() {
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
  }
  void close() {
    replicas_.reset();
    if (logs_) logs_->shutdown();
    logs_.reset();
    registry_.reset();
    store_.reset();
  }

  std::filesystem::path dir_;
  BrokerSettings settings_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<cluster::EmbeddedStore> store_;
  std::unique_ptr<TopicRegistry> registry_;
  std::unique_ptr<ReplicaManager> replicas_;
};

TEST_F(ReplicaAdminTest, GrowsKeepsExistingPartitionsAndPersists) {
  ASSERT_TRUE(replicas_->create_topic("orders", 2, {}, false));
  auto p0 = replicas_->partition("orders", 0);
  ASSERT_NE(p0, nullptr);

  auto grown = replicas_->create_partitions("orders", 5, false);
  ASSERT_TRUE(grown) << grown.status().message();
  EXPECT_EQ(grown->partitions, 5);
  EXPECT_EQ(replicas_->partition("orders", 0), p0) << "existing partitions must keep their object";
  for (int32_t p = 2; p < 5; ++p) {
    auto part = replicas_->partition("orders", p);
    ASSERT_NE(part, nullptr) << p;
    EXPECT_EQ(part->log_end_offset(), 0);
  }
  EXPECT_EQ(replicas_->partition("orders", 5), nullptr);

  close();
  open();
  ASSERT_TRUE(replicas_->topic("orders"));
  EXPECT_EQ(replicas_->topic("orders")->partitions, 5);
  EXPECT_NE(replicas_->partition("orders", 4), nullptr);
}

TEST_F(ReplicaAdminTest, RefusesShrinkSameUnknownAndValidateOnlyChangesNothing) {
  ASSERT_TRUE(replicas_->create_topic("t", 3, {}, false));
  auto same = replicas_->create_partitions("t", 3, false);
  ASSERT_FALSE(same);
  EXPECT_EQ(same.status().kafka_code(), code(ErrorCode::kInvalidPartitions));
  auto fewer = replicas_->create_partitions("t", 2, false);
  ASSERT_FALSE(fewer);
  EXPECT_EQ(fewer.status().kafka_code(), code(ErrorCode::kInvalidPartitions));
  auto huge = replicas_->create_partitions("t", 2000000, false);
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.status().kafka_code(), code(ErrorCode::kInvalidPartitions));
  auto unknown = replicas_->create_partitions("nope", 4, false);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.status().kafka_code(), code(ErrorCode::kUnknownTopicOrPartition));

  auto dry = replicas_->create_partitions("t", 6, true);
  ASSERT_TRUE(dry) << dry.status().message();
  EXPECT_EQ(dry->partitions, 6);
  EXPECT_EQ(replicas_->topic("t")->partitions, 3);
  EXPECT_EQ(replicas_->partition("t", 3), nullptr);
}

TEST(TopicRegistrySetPartitions, OnlyGrowsAndPersists) {
  auto dir = std::filesystem::temp_directory_path() / ("spool-regsp-" + std::to_string(std::random_device{}()));
  std::unique_ptr<cluster::EmbeddedStore> store;
  {
    auto reg = open_test_registry(dir, store);
    ASSERT_TRUE(reg);
    ASSERT_TRUE((*reg)->add("a", 1, {}));
    EXPECT_EQ((*reg)->set_partitions("a", 1).status().kafka_code(), 37);
    EXPECT_EQ((*reg)->set_partitions("zz", 4).status().kafka_code(), 3);
    ASSERT_TRUE((*reg)->set_partitions("a", 4));
  }
  auto reg = open_test_registry(dir, store);
  ASSERT_TRUE(reg);
  EXPECT_EQ((*reg)->get("a")->partitions, 4);
  std::filesystem::remove_all(dir);
}

TEST_F(ReplicaAdminTest, AlterConfigAppliesLiveAndPersists) {
  ASSERT_TRUE(replicas_->create_topic("cfg", 2, {{"retention.ms", "1000"}}, false));
  auto p1 = replicas_->partition("cfg", 1);
  ASSERT_NE(p1, nullptr);
  EXPECT_TRUE(p1->durable_writes());

  auto altered = replicas_->alter_topic_config(
      "cfg", {{"retention.ms", "86400000"}, {"durable.writes", "false"}, {"max.message.bytes", "2048"}}, false);
  ASSERT_TRUE(altered) << altered.status().message();
  EXPECT_EQ(altered->configs.at("retention.ms"), "86400000");
  EXPECT_EQ(replicas_->partition("cfg", 1), p1) << "altering must not reopen partitions";
  EXPECT_EQ(p1->log().config().retention_ms, 86400000);
  EXPECT_FALSE(p1->log().config().durable_writes);
  EXPECT_FALSE(p1->durable_writes());
  EXPECT_EQ(p1->max_message_bytes(), 2048);

  close();
  open();
  auto info = replicas_->topic("cfg");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->configs.at("retention.ms"), "86400000");
  EXPECT_EQ(info->configs.at("durable.writes"), "false");
  auto reopened = replicas_->partition("cfg", 0);
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(reopened->log().config().retention_ms, 86400000);
  EXPECT_FALSE(reopened->durable_writes());
  EXPECT_EQ(reopened->max_message_bytes(), 2048);

  // The whole set is replaced: keys left out return to their defaults.
  ASSERT_TRUE(replicas_->alter_topic_config("cfg", {}, false));
  EXPECT_TRUE(replicas_->topic("cfg")->configs.empty());
  EXPECT_TRUE(reopened->durable_writes());
  EXPECT_EQ(reopened->log().config().retention_ms, log_config_for(settings_, {}).retention_ms);
}

TEST_F(ReplicaAdminTest, NewTopicDefaultsReachTopicsWithoutAnOverride) {
  ASSERT_TRUE(replicas_->create_topic("plain", 2, {}, false));
  ASSERT_TRUE(replicas_->create_topic("own", 1, {{"retention.ms", "1000"}, {"max.message.bytes", "777"}}, false));
  // What a dynamic broker config change does (dynamic_broker_config.h).
  settings_.topic_defaults->set("retention.ms", "5000");
  settings_.topic_defaults->set("max.message.bytes", "20000");
  settings_.topic_defaults->set("min.insync.replicas", "2");
  replicas_->reapply_topic_defaults();
  for (int32_t p : {0, 1}) {
    auto part = replicas_->partition("plain", p);
    EXPECT_EQ(part->log().config().retention_ms, 5000);
    EXPECT_EQ(part->max_message_bytes(), 20000);
    EXPECT_EQ(part->min_insync_replicas(), 2);
  }
  auto own = replicas_->partition("own", 0);
  EXPECT_EQ(own->log().config().retention_ms, 1000) << "an override wins over any default";
  EXPECT_EQ(own->max_message_bytes(), 777);
  EXPECT_EQ(own->min_insync_replicas(), 2);
  // Nothing was persisted: the registry keeps the overrides only.
  EXPECT_TRUE(replicas_->topic("plain")->configs.empty());
}

TEST_F(ReplicaAdminTest, AlterConfigRefusesInvalidAndUnknown) {
  ASSERT_TRUE(replicas_->create_topic("cfg", 1, {{"retention.ms", "1000"}}, false));
  auto bad = replicas_->alter_topic_config("cfg", {{"retention.ms", "soon"}}, false);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().kafka_code(), code(ErrorCode::kInvalidConfig));
  EXPECT_NE(bad.status().message().find("retention.ms"), std::string::npos) << bad.status().message();
  auto unknown_key = replicas_->alter_topic_config("cfg", {{"no.such.key", "1"}}, false);
  ASSERT_FALSE(unknown_key);
  EXPECT_EQ(unknown_key.status().kafka_code(), code(ErrorCode::kInvalidConfig));
  auto cross = replicas_->alter_topic_config(
      "cfg", {{"min.compaction.lag.ms", "100"}, {"max.compaction.lag.ms", "10"}}, false);
  ASSERT_FALSE(cross);
  EXPECT_EQ(cross.status().kafka_code(), code(ErrorCode::kInvalidConfig));
  auto missing = replicas_->alter_topic_config("nope", {{"retention.ms", "5"}}, false);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().kafka_code(), code(ErrorCode::kUnknownTopicOrPartition));
  EXPECT_EQ(replicas_->topic("cfg")->configs.at("retention.ms"), "1000") << "refused alters change nothing";
  EXPECT_EQ(replicas_->partition("cfg", 0)->log().config().retention_ms, 1000);

  auto dry = replicas_->alter_topic_config("cfg", {{"retention.ms", "7"}}, true);
  ASSERT_TRUE(dry) << dry.status().message();
  EXPECT_EQ(dry->configs.at("retention.ms"), "7");
  EXPECT_EQ(replicas_->topic("cfg")->configs.at("retention.ms"), "1000") << "validate_only changes nothing";
  EXPECT_EQ(replicas_->partition("cfg", 0)->log().config().retention_ms, 1000);
}

TEST_F(ReplicaAdminTest, EditTopicConfigStartsFromCurrentSet) {
  ASSERT_TRUE(replicas_->create_topic("cfg", 1, {{"retention.ms", "1000"}}, false));
  auto edited = replicas_->edit_topic_config(
      "cfg",
      [](std::map<std::string, std::string>& m) {
        EXPECT_EQ(m.at("retention.ms"), "1000");
        m["segment.ms"] = "60000";
        return Status::ok();
      },
      false);
  ASSERT_TRUE(edited) << edited.status().message();
  EXPECT_EQ(edited->configs.size(), 2u);
  EXPECT_EQ(replicas_->partition("cfg", 0)->log().config().segment_ms, 60000);

  auto refused = replicas_->edit_topic_config(
      "cfg", [](std::map<std::string, std::string>&) { return Status::error("no", 42); }, false);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().kafka_code(), 42) << "the edit's own error is passed through";
  EXPECT_EQ(replicas_->topic("cfg")->configs.size(), 2u);
}

TEST_F(ReplicaAdminTest, PartitionMetadataNamesTheTopicIdAndSurvivesReopen) {
  auto created = replicas_->create_topic("ids", 2, {}, false);
  ASSERT_TRUE(created) << created.status().message();
  for (int32_t p = 0; p < 2; ++p) {
    auto owner = storage::read_partition_metadata(replicas_->partition("ids", p)->log().dir());
    ASSERT_TRUE(owner.is_ok()) << owner.status().message();
    ASSERT_TRUE(owner->has_value());
    EXPECT_EQ(**owner, created->id);
  }
  close();
  open();
  EXPECT_EQ(replicas_->topic("ids")->id, created->id);
  ASSERT_TRUE(replicas_->create_partitions("ids", 3, false));
  auto owner = storage::read_partition_metadata(replicas_->partition("ids", 2)->log().dir());
  ASSERT_TRUE(owner.is_ok() && owner->has_value());
  EXPECT_EQ(**owner, created->id);
}

TEST_F(ReplicaAdminTest, LeftoverFilesOfADeletedTopicAreNeverServedByItsSuccessor) {
  auto first = replicas_->create_topic("reborn", 1, {}, false);
  ASSERT_TRUE(first);
  const std::string dir = replicas_->partition("reborn", 0)->log().dir();
  {
    record::BuildRecord r;
    r.value = Bytes{'o', 'l', 'd'};
    std::vector<record::BuildRecord> records{r};
    auto batch = record::build_batch({}, records);
    ASSERT_TRUE(batch);
    ASSERT_TRUE(replicas_->partition("reborn", 0)->append(std::span<uint8_t>(batch->data(), batch->size()), 1));
  }
  // A crash between the registry's removal and the files' removal leaves the
  // old topic's partition dir behind; simulate it by dropping the registry
  // entry alone.
  close();
  {
    std::unique_ptr<cluster::EmbeddedStore> store;
    auto reg = open_test_registry(dir_, store);
    ASSERT_TRUE(reg);
    ASSERT_TRUE((*reg)->remove("reborn"));
  }
  open();
  EXPECT_EQ(replicas_->partition("reborn", 0), nullptr);
  ASSERT_TRUE(std::filesystem::exists(dir)) << "left on disk, not served";
  auto old_log = logs_->get("reborn", 0);
  ASSERT_NE(old_log, nullptr);
  EXPECT_EQ(old_log->log_end_offset(), 1);
  old_log.reset();
  auto again = replicas_->create_topic("reborn", 1, {}, false);
  ASSERT_TRUE(again) << again.status().message();
  EXPECT_NE(again->id, first->id) << "a re-created topic gets a new id";
  EXPECT_EQ(replicas_->partition("reborn", 0)->log_end_offset(), 0) << "the old topic's record is served";
  auto owner = storage::read_partition_metadata(replicas_->partition("reborn", 0)->log().dir());
  ASSERT_TRUE(owner.is_ok() && owner->has_value());
  EXPECT_EQ(**owner, again->id);
}

TEST_F(ReplicaAdminTest, PartitionDirOfAnotherTopicIdStopsTheLoad) {
  auto created = replicas_->create_topic("swapped", 1, {}, false);
  ASSERT_TRUE(created);
  const std::string dir = replicas_->partition("swapped", 0)->log().dir();
  close();
  storage::Uuid other = created->id;
  other[0] ^= 0xff;
  ASSERT_TRUE(storage::write_partition_metadata(dir, other));
  open_unloaded();
  Status s = replicas_->load();
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.kafka_code(), code(ErrorCode::kKafkaStorageError));
  EXPECT_NE(s.message().find(storage::uuid_to_text(other)), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(storage::uuid_to_text(created->id)), std::string::npos) << s.message();
  EXPECT_TRUE(std::filesystem::exists(dir)) << "the files are kept for the operator";
  // A malformed file stops it too.
  ASSERT_TRUE(storage::write_file_atomic(dir + "/partition.metadata", "garbage"));
  replicas_ = std::make_unique<ReplicaManager>(settings_, *registry_, *logs_);
  EXPECT_FALSE(replicas_->load().is_ok());
}

}  // namespace
}  // namespace spool::broker
