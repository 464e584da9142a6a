// Producer-id blocks on the in-memory store: first block, consecutive blocks
// across brokers, a lost race retried, corrupt and exhausted nodes refused.
#include "cluster/producer_id_blocks.h"

#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <thread>

#include "cluster/memory_store.h"

namespace spool::cluster {
namespace {

constexpr const char* kPath = "/latest_producer_id_block";

int32_t s_version(MemoryStore& s) { return s.get(kPath)->stat.version; }

TEST(ProducerIdBlocks, FirstBlockOnAbsentOrEmptyNode) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore s(tree);
  auto b = claim_producer_id_block(s, 3, 1000);
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  EXPECT_EQ(*b, (ProducerIdBlock{3, 0, 999}));
  EXPECT_EQ(s.get(kPath)->data, encode_producer_id_block(*b));

  auto tree2 = std::make_shared<MemoryTree>();
  MemoryStore s2(tree2);
  ASSERT_TRUE(s2.create(kPath, "").is_ok());  // Kafka's top-level path, empty
  auto b2 = claim_producer_id_block(s2, 1, 10);
  ASSERT_TRUE(b2.is_ok());
  EXPECT_EQ(*b2, (ProducerIdBlock{1, 0, 9}));
}

TEST(ProducerIdBlocks, ConsecutiveBlocksAcrossBrokers) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore a(tree), b(tree);
  EXPECT_EQ(*claim_producer_id_block(a, 1, 1000), (ProducerIdBlock{1, 0, 999}));
  EXPECT_EQ(*claim_producer_id_block(b, 2, 1000), (ProducerIdBlock{2, 1000, 1999}));
  EXPECT_EQ(*claim_producer_id_block(a, 1, 1000), (ProducerIdBlock{1, 2000, 2999}));
  EXPECT_EQ(s_version(a), 2);
}

TEST(ProducerIdBlocks, ConcurrentClaimsNeverOverlap) {
  auto tree = std::make_shared<MemoryTree>();
  constexpr int kBrokers = 4, kClaims = 25;
  std::vector<std::unique_ptr<MemoryStore>> stores;
  for (int i = 0; i < kBrokers; ++i) stores.push_back(std::make_unique<MemoryStore>(tree));
  std::vector<std::vector<ProducerIdBlock>> got(kBrokers);
  std::vector<std::thread> threads;
  for (int i = 0; i < kBrokers; ++i) {
    threads.emplace_back([&, i] {
      for (int c = 0; c < kClaims; ++c) {
        auto b = claim_producer_id_block(*stores[i], i, 100, 1000);
        if (b) got[i].push_back(*b);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<int64_t> starts;
  for (int i = 0; i < kBrokers; ++i) {
    EXPECT_EQ(got[i].size(), static_cast<size_t>(kClaims));
    for (const auto& b : got[i]) {
      EXPECT_EQ(b.block_end - b.block_start, 99);
      EXPECT_EQ(b.block_start % 100, 0);
      EXPECT_TRUE(starts.insert(b.block_start).second) << "block at " << b.block_start << " handed out twice";
    }
  }
  EXPECT_EQ(*starts.rbegin(), (kBrokers * kClaims - 1) * 100);
}

TEST(ProducerIdBlocks, CorruptOrExhaustedNodeIsRefused) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore s(tree);
  ASSERT_TRUE(s.create(kPath, "{\"version\":1,\"broker\":1}").is_ok());
  auto bad = claim_producer_id_block(s, 1);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find(kPath), std::string::npos) << bad.status().message();

  ASSERT_TRUE(s.set(kPath, encode_producer_id_block({1, std::numeric_limits<int64_t>::max() - 1010, std::numeric_limits<int64_t>::max() - 10})).is_ok());
  auto full = claim_producer_id_block(s, 1, 1000);
  ASSERT_FALSE(full.is_ok());
  EXPECT_NE(full.status().message().find("exhausted"), std::string::npos) << full.status().message();
  EXPECT_FALSE(claim_producer_id_block(s, 1, 0).is_ok());
}

TEST(ProducerIdBlocks, StoreFailureIsAnError) {
  auto tree = std::make_shared<MemoryTree>();
  MemoryStore s(tree);
  s.disconnect();
  auto b = claim_producer_id_block(s, 1);
  ASSERT_FALSE(b.is_ok());
  EXPECT_NE(b.status().message().find(store_code_name(StoreCode::kConnectionLoss)), std::string::npos);
}

}  // namespace
}  // namespace spool::cluster
