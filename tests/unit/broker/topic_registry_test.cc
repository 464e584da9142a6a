// TopicRegistry over a real EmbeddedStore in a temp dir: topics, ids,
// partition counts and configs survive a reopen in Kafka's ZooKeeper layout;
// the old spool-metadata.json is imported exactly once; a corrupt old file
// or store node stops the open naming it; a failed write changes nothing.
#include "broker/topic_registry.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>

#include "cluster/memory_store.h"
#include "cluster/zk_data.h"
#include "cluster/zk_paths.h"
#include "common/temp_dir.h"
#include "registry_test_support.h"

namespace spool::broker {
namespace {

namespace zk_paths = cluster::zk_paths;

// What the old TopicRegistry (before the metadata store) wrote for four
// topics: produced by its save_locked (add_with_id, then the file as is).
constexpr const char* kOldFile = R"({
  "topics": [
    {
      "configs": {
        "cleanup.policy": "compact",
        "segment.bytes": "104857600"
      },
      "id": "f0efeeedeceb43e9a1e7e6e5e4e3e2e1",
      "name": "__consumer_offsets",
      "partitions": 50
    },
    {
      "configs": {},
      "id": "00000000000000000000000000000000",
      "name": "legacy.no_id",
      "partitions": 1
    },
    {
      "configs": {
        "cleanup.policy": "compact,delete",
        "retention.ms": "86400000"
      },
      "id": "1011121314154a179b191a1b1c1d1e1f",
      "name": "orders",
      "partitions": 3
    },
    {
      "configs": {
        "message.timestamp.type": "LogAppendTime"
      },
      "id": "0102030405064708890a0b0c0d0e0f10",
      "name": "quoted",
      "partitions": 2
    }
  ],
  "version": 1
}
)";

class TopicRegistryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::warn); }

  Result<std::unique_ptr<TopicRegistry>> open(int32_t broker_id = 0) {
    return open_test_registry(dir(), store_, broker_id);
  }
  // Drops the registry (if the test holds one) before the store it uses.
  void close(std::unique_ptr<TopicRegistry>& reg) {
    reg.reset();
    store_.reset();
  }
  std::filesystem::path dir() const { return dir_.path(); }
  std::filesystem::path old_file() const { return dir() / "spool-metadata.json"; }
  void write_old_file(const std::string& text) { std::ofstream(old_file(), std::ios::trunc) << text; }

  test_support::TempDir dir_{"spool-registry"};
  std::unique_ptr<cluster::EmbeddedStore> store_;
};

TopicId id_of(std::initializer_list<uint8_t> bytes) {
  TopicId id{};
  std::copy(bytes.begin(), bytes.end(), id.begin());
  return id;
}

TEST_F(TopicRegistryTest, TopicsSurviveReopenExactly) {
  TopicInfo a, b;
  {
    auto reg = open();
    ASSERT_TRUE(reg) << reg.status().message();
    auto ra = (*reg)->add("alpha", 3, {{"retention.ms", "1000"}});
    auto rb = (*reg)->add("beta", 1, {});
    ASSERT_TRUE(ra && rb);
    a = *ra;
    b = *rb;
    EXPECT_NE(a.id, b.id);
    close(*reg);
  }
  auto reg = open();
  ASSERT_TRUE(reg) << reg.status().message();
  auto topics = (*reg)->list();
  ASSERT_EQ(topics.size(), 2u);
  auto got = (*reg)->get("alpha");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->partitions, 3);
  EXPECT_EQ(got->id, a.id);
  EXPECT_EQ(got->configs.at("retention.ms"), "1000");
  EXPECT_EQ((*reg)->get("beta")->id, b.id);
}

TEST_F(TopicRegistryTest, DuplicateAddFailsAndRemovePersists) {
  {
    auto reg = open();
    ASSERT_TRUE(reg);
    ASSERT_TRUE((*reg)->add("t", 1, {}));
    auto again = (*reg)->add("t", 2, {});
    ASSERT_FALSE(again);
    EXPECT_EQ(again.status().kafka_code(), 36);  // TOPIC_ALREADY_EXISTS
    ASSERT_TRUE((*reg)->remove("t"));
    EXPECT_FALSE((*reg)->remove("t"));
    close(*reg);
  }
  auto reg = open();
  ASSERT_TRUE(reg);
  EXPECT_TRUE((*reg)->list().empty());
}

TEST_F(TopicRegistryTest, IdLookupFindsOnlyTheLiveTopicWithThatId) {
  auto reg = open();
  ASSERT_TRUE(reg);
  auto first = (*reg)->add("t", 1, {});
  ASSERT_TRUE(first);
  auto found = (*reg)->get_by_id(first->id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->name, "t");
  EXPECT_FALSE((*reg)->get_by_id(TopicId{}));
  ASSERT_TRUE((*reg)->remove("t"));
  auto second = (*reg)->add("t", 1, {});
  ASSERT_TRUE(second);
  EXPECT_NE(second->id, first->id);
  EXPECT_FALSE((*reg)->get_by_id(first->id));  // the old id never finds the new topic
  ASSERT_TRUE((*reg)->get_by_id(second->id));
}

TEST_F(TopicRegistryTest, CorruptFileStopsTheStartInsteadOfForgettingTopics) {
  for (const char* bad : {"not json", "{}", R"({"version":1,"topics":[{"name":"x"}]})",
                          R"({"version":1,"topics":[{"name":"bad name","id":"00000000000000000000000000000000","partitions":1}]})",
                          R"({"version":1,"topics":[{"name":"x","id":"zz","partitions":1}]})",
                          R"({"version":1,"topics":[{"name":"x","id":"00000000000000000000000000000000","partitions":0}]})",
                          R"({"version":7,"topics":[]})"}) {
    write_old_file(bad);
    auto reg = open();
    ASSERT_FALSE(reg) << bad;
    EXPECT_NE(reg.status().message().find("invalid"), std::string::npos);
    EXPECT_NE(reg.status().message().find(old_file().string()), std::string::npos) << reg.status().message();
    EXPECT_TRUE(std::filesystem::exists(old_file())) << "a bad old file is left as it is";
    store_.reset();
  }
}

TEST_F(TopicRegistryTest, EveryChangeIsStoredInKafkasLayoutAndSurvivesReopen) {
  TopicInfo kept;
  {
    auto reg = open(/*broker_id=*/7);
    ASSERT_TRUE(reg) << reg.status().message();
    auto added = (*reg)->add("kept", 2, {{"retention.ms", "5000"}});
    ASSERT_TRUE(added) << added.status().message();
    kept = *added;
    ASSERT_TRUE((*reg)->add("gone", 1, {{"cleanup.policy", "compact"}}));
    ASSERT_TRUE((*reg)->set_partitions("kept", 5));
    ASSERT_TRUE((*reg)->set_configs("kept", {{"segment.bytes", "1048576"}, {"retention.ms", "-1"}}));
    ASSERT_TRUE((*reg)->remove("gone"));

    auto node = store_->get(zk_paths::topic("kept"));
    ASSERT_TRUE(node);
    auto assignment = cluster::decode_topic_assignment("kept", node->data);
    ASSERT_TRUE(assignment) << assignment.status().message();
    EXPECT_EQ(assignment->topic_id, kept.id);
    ASSERT_EQ(assignment->partitions.size(), 5u);
    for (const auto& [p, replicas] : assignment->partitions) EXPECT_EQ(replicas.replicas, std::vector<int32_t>{7}) << p;
    auto config = store_->get(zk_paths::config_topic("kept"));
    ASSERT_TRUE(config);
    auto overrides = cluster::decode_entity_config(zk_paths::config_topic("kept"), config->data);
    ASSERT_TRUE(overrides);
    EXPECT_EQ(*overrides, (cluster::EntityConfig{{"retention.ms", "-1"}, {"segment.bytes", "1048576"}}));
    EXPECT_EQ(store_->exists(zk_paths::topic("gone")).code(), cluster::StoreCode::kNoNode);
    EXPECT_EQ(store_->exists(zk_paths::config_topic("gone")).code(), cluster::StoreCode::kNoNode);
    close(*reg);
  }
  EXPECT_TRUE(std::filesystem::exists(dir() / "spool-metadata-store"));
  EXPECT_FALSE(std::filesystem::exists(old_file())) << "nothing writes the old file any more";
  auto reg = open(7);
  ASSERT_TRUE(reg) << reg.status().message();
  ASSERT_EQ((*reg)->list().size(), 1u);
  auto got = (*reg)->get("kept");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->id, kept.id);
  EXPECT_EQ(got->partitions, 5);
  EXPECT_EQ(got->configs, (std::map<std::string, std::string>{{"retention.ms", "-1"}, {"segment.bytes", "1048576"}}));
  EXPECT_EQ((*reg)->name_of(kept.id), "kept");
  EXPECT_FALSE((*reg)->get("gone"));
  // A re-created name gets a new id and a fresh config.
  auto again = (*reg)->add("gone", 1, {});
  ASSERT_TRUE(again);
  EXPECT_TRUE((*reg)->get("gone")->configs.empty());
}

TEST_F(TopicRegistryTest, ImportsTheOldFileExactlyOnce) {
  write_old_file(kOldFile);
  const std::vector<TopicInfo> expected = {
      {"__consumer_offsets",
       id_of({0xf0, 0xef, 0xee, 0xed, 0xec, 0xeb, 0x43, 0xe9, 0xa1, 0xe7, 0xe6, 0xe5, 0xe4, 0xe3, 0xe2, 0xe1}),
       50,
       {{"cleanup.policy", "compact"}, {"segment.bytes", "104857600"}}},
      {"legacy.no_id", TopicId{}, 1, {}},
      {"orders",
       id_of({0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x4a, 0x17, 0x9b, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f}),
       3,
       {{"cleanup.policy", "compact,delete"}, {"retention.ms", "86400000"}}},
      {"quoted", id_of({1, 2, 3, 4, 5, 6, 0x47, 8, 0x89, 10, 11, 12, 13, 14, 15, 16}), 2,
       {{"message.timestamp.type", "LogAppendTime"}}},
  };
  {
    auto reg = open();
    ASSERT_TRUE(reg) << reg.status().message();
    EXPECT_EQ((*reg)->list(), expected);
    EXPECT_EQ((*reg)->name_of(expected[2].id), "orders");
    EXPECT_FALSE((*reg)->get_by_id(TopicId{})) << "the zero id stays Kafka's \"no id\"";
    EXPECT_FALSE(std::filesystem::exists(old_file()));
    EXPECT_TRUE(std::filesystem::exists(dir() / "spool-metadata.json.migrated"));
    auto node = store_->get(zk_paths::topic("legacy.no_id"));
    ASSERT_TRUE(node);
    EXPECT_EQ(node->data.find("topic_id"), std::string::npos) << node->data;
    close(*reg);
  }
  // From now on the store alone holds them.
  auto reg = open();
  ASSERT_TRUE(reg) << reg.status().message();
  EXPECT_EQ((*reg)->list(), expected);
}

TEST_F(TopicRegistryTest, AnInterruptedImportIsFinishedAndADifferentOldFileStopsTheStart) {
  write_old_file(kOldFile);
  {
    auto reg = open();
    ASSERT_TRUE(reg) << reg.status().message();
    close(*reg);
  }
  // The import was saved but the rename did not happen: finished now.
  std::filesystem::rename(dir() / "spool-metadata.json.migrated", old_file());
  {
    auto reg = open();
    ASSERT_TRUE(reg) << reg.status().message();
    EXPECT_EQ((*reg)->list().size(), 4u);
    EXPECT_FALSE(std::filesystem::exists(old_file()));
    ASSERT_TRUE((*reg)->remove("orders"));
    close(*reg);
  }
  // An old file that disagrees with the store: neither side is dropped.
  std::filesystem::rename(dir() / "spool-metadata.json.migrated", old_file());
  auto reg = open();
  ASSERT_FALSE(reg);
  EXPECT_NE(reg.status().message().find(old_file().string()), std::string::npos) << reg.status().message();
  EXPECT_NE(reg.status().message().find("differ"), std::string::npos) << reg.status().message();
  EXPECT_TRUE(std::filesystem::exists(old_file()));
}

TEST_F(TopicRegistryTest, AStoreNodeThatFailsValidationStopsTheStartNamingIt) {
  struct Case {
    std::string path;
    std::string data;
  };
  const std::vector<Case> cases = {
      {"/brokers/topics/t", "not json"},
      {"/brokers/topics/t", R"({"version":3,"partitions":{"0":[]}})"},
      {"/brokers/topics/t", R"({"version":3,"partitions":{"0":[0],"2":[0]}})"},
      {"/brokers/topics/t", R"({"version":3,"partitions":{}})"},
      {"/brokers/topics/t", R"({"version":3,"topic_id":"nope","partitions":{"0":[0]}})"},
      {"/config/topics/t", R"({"version":1,"config":{"retention.ms":5}})"},
      {"/brokers/topics/bad$name", R"({"version":3,"partitions":{"0":[0]}})"},
  };
  for (const auto& c : cases) {
    {
      auto reg = open();
      ASSERT_TRUE(reg) << reg.status().message();
      ASSERT_TRUE((*reg)->add("t", 1, {}));
      auto present = store_->exists(c.path);
      auto written = present ? store_->set(c.path, c.data).code() : store_->create(c.path, c.data).code();
      ASSERT_EQ(written, cluster::StoreCode::kOk) << c.path;
      close(*reg);
    }
    auto reg = open();
    ASSERT_FALSE(reg) << c.path << " " << c.data;
    EXPECT_NE(reg.status().message().find(c.path), std::string::npos) << reg.status().message();
    store_.reset();
    std::filesystem::remove(dir() / "spool-metadata-store");
  }
}

TEST_F(TopicRegistryTest, ADamagedStoreFileStopsTheStartNamingIt) {
  {
    auto reg = open();
    ASSERT_TRUE(reg);
    ASSERT_TRUE((*reg)->add("t", 1, {}));
    close(*reg);
  }
  const auto file = dir() / "spool-metadata-store";
  auto size = std::filesystem::file_size(file);
  std::filesystem::resize_file(file, size - 3);
  auto reg = open();
  ASSERT_FALSE(reg);
  EXPECT_NE(reg.status().message().find(file.string()), std::string::npos) << reg.status().message();
}

TEST_F(TopicRegistryTest, AWriteThatIsNotSavedChangesNothing) {
  auto reg = open();
  ASSERT_TRUE(reg);
  ASSERT_TRUE((*reg)->add("kept", 1, {{"retention.ms", "1"}}));
  // Saves fail while a directory sits where the store writes its temp file.
  const auto tmp = dir() / "spool-metadata-store.tmp";
  std::filesystem::create_directory(tmp);
  EXPECT_FALSE((*reg)->add("lost", 1, {}));
  EXPECT_FALSE((*reg)->set_partitions("kept", 4));
  EXPECT_FALSE((*reg)->set_configs("kept", {}));
  EXPECT_FALSE((*reg)->remove("kept"));
  EXPECT_FALSE((*reg)->get("lost"));
  EXPECT_EQ((*reg)->get("kept")->partitions, 1);
  EXPECT_EQ((*reg)->get("kept")->configs.at("retention.ms"), "1");
  // The failed writes were put back in the store's memory too: the next
  // save that works does not carry them to disk.
  std::filesystem::remove(tmp);
  ASSERT_TRUE((*reg)->add("later", 2, {}));
  close(*reg);
  auto again = open();
  ASSERT_TRUE(again) << again.status().message();
  ASSERT_EQ((*again)->list().size(), 2u);
  EXPECT_FALSE((*again)->get("lost"));
  EXPECT_EQ((*again)->get("kept")->partitions, 1);
  EXPECT_EQ((*again)->get("kept")->configs.at("retention.ms"), "1");
}

TEST(TopicRegistryStoreErrors, AFailingStoreFailsTheWriteAndKeepsTheOldState) {
  auto tree = std::make_shared<cluster::MemoryTree>(cluster::MemoryTree::Delivery::kManual);
  cluster::MemoryStore store(tree);
  test_support::TempDir dir{"spool-registry-mem"};
  auto reg = TopicRegistry::open(store, 1, dir.path());
  ASSERT_TRUE(reg) << reg.status().message();
  ASSERT_TRUE((*reg)->add("t", 1, {}));
  store.disconnect();
  auto failed = (*reg)->add("u", 1, {});
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.status().message().find("/config/topics/u"), std::string::npos) << failed.status().message();
  EXPECT_FALSE((*reg)->remove("t"));
  store.restore_connection();
  EXPECT_TRUE((*reg)->get("t"));
  EXPECT_FALSE((*reg)->get("u"));
  EXPECT_EQ(store.exists(zk_paths::topic("u")).code(), cluster::StoreCode::kNoNode);
  EXPECT_EQ(store.exists(zk_paths::topic("t")).code(), cluster::StoreCode::kOk);
}

}  // namespace
}  // namespace spool::broker
