// ProducerIdManager: ids are unique, also across reopen (restart or crash),
// and a damaged block file stops the broker instead of repeating ids.
#include "broker/producer_id_manager.h"
#include "common/temp_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

namespace spool::broker {
namespace {

class TempDir : public test_support::TempDir {
 public:
  TempDir() : test_support::TempDir("spool-pid") {}
};

std::string read_file(const std::string& p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(ProducerIdManagerTest, SequentialWithinABlockAndPersistedBeforeUse) {
  TempDir dir;
  auto m = ProducerIdManager::open(dir.path(), 10);
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  std::string file = dir.path() + "/producer-id-block";
  EXPECT_FALSE(std::filesystem::exists(file));  // nothing reserved until asked
  auto first = (*m)->next_id();
  ASSERT_TRUE(first.is_ok());
  EXPECT_EQ(*first, 0);
  EXPECT_EQ(read_file(file), "version=1\nblock_end=10\n");
  for (int i = 1; i < 10; ++i) EXPECT_EQ(*(*m)->next_id(), i);
  EXPECT_EQ(read_file(file), "version=1\nblock_end=10\n");
  EXPECT_EQ(*(*m)->next_id(), 10);  // crosses into the next block
  EXPECT_EQ(read_file(file), "version=1\nblock_end=20\n");
}

TEST(ProducerIdManagerTest, UniqueAcrossReopen) {
  TempDir dir;
  std::set<int64_t> seen;
  for (int run = 0; run < 3; ++run) {
    auto m = ProducerIdManager::open(dir.path(), 100);
    ASSERT_TRUE(m.is_ok());
    for (int i = 0; i < 7; ++i) {
      auto id = (*m)->next_id();
      ASSERT_TRUE(id.is_ok());
      EXPECT_TRUE(seen.insert(*id).second) << "id " << *id << " handed out twice";
    }
  }
  // Each reopen skips the rest of the previous block.
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), 206);
}

TEST(ProducerIdManagerTest, UniqueAcrossThreads) {
  TempDir dir;
  auto m = ProducerIdManager::open(dir.path(), 16);
  ASSERT_TRUE(m.is_ok());
  std::vector<std::vector<int64_t>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) got[t].push_back(*(*m)->next_id());
    });
  for (auto& th : threads) th.join();
  std::set<int64_t> all;
  for (const auto& v : got) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), 800u);
}

TEST(ProducerIdManagerTest, DamagedFileIsRefused) {
  for (const char* content : {"", "garbage", "version=2\nblock_end=10\n", "version=1\nblock_end=x\n",
                              "version=1\nblock_end=-5\n", "version=1\nblock_end=10", "version=1\nblock_end=10\nmore\n"}) {
    TempDir dir;
    {
      std::ofstream f(dir.path() + "/producer-id-block");
      f << content;
    }
    auto m = ProducerIdManager::open(dir.path());
    EXPECT_FALSE(m.is_ok()) << "accepted: " << content;
  }
}

TEST(ProducerIdManagerTest, UnwritableDirFailsWithoutHandingOut) {
  TempDir dir;
  std::string sub = dir.path() + "/gone";
  std::filesystem::create_directory(sub);
  auto m = ProducerIdManager::open(sub);
  ASSERT_TRUE(m.is_ok());
  std::filesystem::remove_all(sub);
  auto id = (*m)->next_id();
  EXPECT_FALSE(id.is_ok());
}

}  // namespace
}  // namespace spool::broker
