#include "broker/topic_registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace spool::broker {
namespace {

class TopicRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("spool-registry-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write_file(const std::string& text) {
    std::ofstream(dir_ / "spool-metadata.json") << text;
  }
  std::filesystem::path dir_;
};

TEST_F(TopicRegistryTest, TopicsSurviveReopenExactly) {
  TopicInfo a, b;
  {
    auto reg = TopicRegistry::open(dir_);
    ASSERT_TRUE(reg) << reg.status().message();
    auto ra = (*reg)->add("alpha", 3, {{"retention.ms", "1000"}});
    auto rb = (*reg)->add("beta", 1, {});
    ASSERT_TRUE(ra && rb);
    a = *ra;
    b = *rb;
    EXPECT_NE(a.id, b.id);
  }
  auto reg = TopicRegistry::open(dir_);
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
    auto reg = TopicRegistry::open(dir_);
    ASSERT_TRUE(reg);
    ASSERT_TRUE((*reg)->add("t", 1, {}));
    auto again = (*reg)->add("t", 2, {});
    ASSERT_FALSE(again);
    EXPECT_EQ(again.status().kafka_code(), 36);  // TOPIC_ALREADY_EXISTS
    ASSERT_TRUE((*reg)->remove("t"));
    EXPECT_FALSE((*reg)->remove("t"));
  }
  auto reg = TopicRegistry::open(dir_);
  ASSERT_TRUE(reg);
  EXPECT_TRUE((*reg)->list().empty());
}

TEST_F(TopicRegistryTest, IdLookupFindsOnlyTheLiveTopicWithThatId) {
  auto reg = TopicRegistry::open(dir_);
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
    write_file(bad);
    auto reg = TopicRegistry::open(dir_);
    ASSERT_FALSE(reg) << bad;
    EXPECT_NE(reg.status().message().find("invalid"), std::string::npos);
  }
}

}  // namespace
}  // namespace spool::broker
