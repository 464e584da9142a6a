// The producer's partitioner (client/producer/partitioner.h): murmur2 and
// partition_for_key against the Java client's answers for 10,000 keys
// (data/murmur2_reference.txt, written and checked by the compat test
// tests/compat/java/.../PartitionerReferenceTest.java) and Kafka's own
// UtilsTest vectors; select_partition's order of rules; StickyPartitioner's
// choice among available partitions and its switching rule.
#include "client/producer/partitioner.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace spool::client {
namespace {

// The keys of PartitionerReferenceTest.java, rebuilt from their index (the
// Java file's header comment defines them): splitmix64 seeded with
// kKeySeed + index; index <= 100: index random bytes; else index % 4 == 1:
// "key-<index/4>"; index % 4 == 3: "ключ-<index/4>-é€𝄞" in UTF-8; else
// next() % 101 random bytes. A random byte is the low 8 bits of next().
constexpr uint64_t kKeySeed = 0x53504F4F4C4B4559ull;  // "SPOOLKEY"
constexpr int kKeys = 10000;
constexpr int32_t kPartitionCounts[] = {1, 3, 7, 12, 100, 1000};

struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

Bytes random_bytes(SplitMix64& rng, size_t n) {
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng.next());
  return b;
}

Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes reference_key(int index) {
  SplitMix64 rng{kKeySeed + static_cast<uint64_t>(index)};
  if (index <= 100) return random_bytes(rng, static_cast<size_t>(index));
  switch (index % 4) {
    case 1:
      return text("key-" + std::to_string(index / 4));
    case 3:
      return text("\xD0\xBA\xD0\xBB\xD1\x8E\xD1\x87-" + std::to_string(index / 4) +
                  "-\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E");
    default:
      return random_bytes(rng, rng.next() % 101);
  }
}

TEST(PartitionerReference, KeysAreTheJavaTestsKeys) {
  EXPECT_TRUE(reference_key(0).empty());
  for (int n = 1; n <= 4; ++n) EXPECT_EQ(reference_key(n).size(), static_cast<size_t>(n));
  EXPECT_EQ(reference_key(169), text("key-42"));
  EXPECT_EQ(reference_key(103), text("ключ-25-é€𝄞"));
}

TEST(PartitionerReference, MatchesTheJavaClientOnTenThousandKeys) {
  const std::string path =
      std::string(SPOOL_SOURCE_DIR) + "/tests/unit/client/data/murmur2_reference.txt";
  std::ifstream in(path);
  ASSERT_TRUE(in.is_open()) << path << " is missing: run PartitionerReferenceTest with "
                            << "SPOOL_WRITE_REFERENCE=1 in tests/compat/java";
  std::string line;
  int index = 0;
  int mismatches = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    int file_index = -1;
    int32_t hash = 0;
    fields >> file_index >> hash;
    ASSERT_EQ(file_index, index) << "line: " << line;
    const Bytes key = reference_key(index);
    const int32_t got = murmur2(key);
    if (got != hash) {
      ADD_FAILURE() << "key " << index << ": murmur2 " << got << ", Java " << hash;
      ++mismatches;
    }
    for (int32_t n : kPartitionCounts) {
      int32_t want = -1;
      fields >> want;
      const int32_t p = partition_for_key(key, n);
      if (p != want) {
        ADD_FAILURE() << "key " << index << " over " << n << " partitions: " << p << ", Java "
                      << want;
        ++mismatches;
      }
    }
    ASSERT_FALSE(fields.fail()) << "malformed line: " << line;
    ASSERT_LT(mismatches, 20) << "stopping after 20 mismatches";
    ++index;
  }
  EXPECT_EQ(index, kKeys);
}

// Kafka's UtilsTest.testMurmur2, plus the empty key.
TEST(Murmur2, KafkaUtilsTestVectors) {
  EXPECT_EQ(murmur2(as_span("21")), -973932308);
  EXPECT_EQ(murmur2(as_span("foobar")), -790332482);
  EXPECT_EQ(murmur2(as_span("a-little-bit-long-string")), -985981536);
  EXPECT_EQ(murmur2(as_span("a-little-bit-longer-string")), -1486304829);
  EXPECT_EQ(murmur2(as_span("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8")), -58897971);
  EXPECT_EQ(murmur2(as_span("abc")), 479470107);
  EXPECT_EQ(murmur2({}), 275646681);
}

TEST(Murmur2, ToPositiveClearsTheSignBit) {
  EXPECT_EQ(to_positive(0), 0);
  EXPECT_EQ(to_positive(-1), 0x7fffffff);
  EXPECT_EQ(to_positive(INT32_MIN), 0);
  EXPECT_EQ(to_positive(-973932308), -973932308 & 0x7fffffff);
  EXPECT_EQ(partition_for_key(as_span("21"), 7), (-973932308 & 0x7fffffff) % 7);
}

class FixedPartitioner final : public Partitioner {
 public:
  explicit FixedPartitioner(int32_t answer) : answer_(answer) {}
  int32_t partition(const std::string&, const std::optional<Bytes>&, const std::optional<Bytes>&,
                    int32_t) override {
    ++calls;
    return answer_;
  }
  int calls = 0;

 private:
  int32_t answer_;
};

TEST(SelectPartition, KeyHashUnlessIgnoredElseSticky) {
  const std::optional<Bytes> key = text("foobar");
  EXPECT_EQ(*select_partition(nullptr, "t", key, std::nullopt, 12, false),
            partition_for_key(*key, 12));
  EXPECT_EQ(*select_partition(nullptr, "t", key, std::nullopt, 12, true), kStickyPartition);
  EXPECT_EQ(*select_partition(nullptr, "t", std::nullopt, text("v"), 12, false), kStickyPartition);
  // An empty key is a key.
  EXPECT_EQ(*select_partition(nullptr, "t", Bytes{}, std::nullopt, 12, false),
            partition_for_key({}, 12));
}

TEST(SelectPartition, CustomAnswerWinsAndMinusOneFallsBack) {
  const std::optional<Bytes> key = text("foobar");
  FixedPartitioner five(5);
  EXPECT_EQ(*select_partition(&five, "t", key, std::nullopt, 12, false), 5);
  EXPECT_EQ(*select_partition(&five, "t", std::nullopt, std::nullopt, 12, false), 5);

  FixedPartitioner builtin(Partitioner::kUseBuiltIn);
  EXPECT_EQ(*select_partition(&builtin, "t", key, std::nullopt, 12, false),
            partition_for_key(*key, 12));
  EXPECT_EQ(*select_partition(&builtin, "t", key, std::nullopt, 12, true), kStickyPartition);
  EXPECT_EQ(*select_partition(&builtin, "t", std::nullopt, std::nullopt, 12, false),
            kStickyPartition);
  EXPECT_EQ(builtin.calls, 3);
}

TEST(SelectPartition, InvalidAnswersAreErrors) {
  FixedPartitioner twelve(12), minus_two(-2);
  EXPECT_FALSE(select_partition(&twelve, "t", std::nullopt, std::nullopt, 12, false).is_ok());
  EXPECT_FALSE(select_partition(&minus_two, "t", std::nullopt, std::nullopt, 12, false).is_ok());
  EXPECT_FALSE(select_partition(nullptr, "t", text("k"), std::nullopt, 0, false).is_ok());
}

// Chooses, appends `bytes` with switching enabled until it switches, and
// returns the partitions chosen, `switches` times over.
std::vector<int32_t> choices(StickyPartitioner& sp, const std::vector<int32_t>& available,
                             int32_t num_partitions, int switches) {
  std::vector<int32_t> out;
  for (int i = 0; i < switches; ++i) {
    const int32_t p = sp.partition("t", available, num_partitions);
    out.push_back(p);
    while (!sp.on_append("t", p, 100, true)) {
    }
  }
  return out;
}

TEST(StickyPartitioner, SameSeedSameChoices) {
  StickyPartitioner a(1000, 42), b(1000, 42), c(1000, 43);
  const auto ca = choices(a, {}, 100, 50);
  EXPECT_EQ(ca, choices(b, {}, 100, 50));
  EXPECT_NE(ca, choices(c, {}, 100, 50));
}

TEST(StickyPartitioner, StaysUntilBatchSizeThenSwitches) {
  StickyPartitioner sp(1000, 7);
  const int32_t p = sp.partition("t", {}, 4);
  for (int i = 0; i < 9; ++i) {
    EXPECT_FALSE(sp.on_append("t", p, 100, true));
    EXPECT_EQ(sp.partition("t", {}, 4), p);
  }
  EXPECT_TRUE(sp.on_append("t", p, 100, true));  // 1000 >= batch.size
  EXPECT_EQ(sp.current("t"), -1);
  // The next choice starts counting from zero.
  const int32_t q = sp.partition("t", {}, 4);
  EXPECT_FALSE(sp.on_append("t", q, 999, true));
  EXPECT_TRUE(sp.on_append("t", q, 1, true));

  // Over many switches every partition is chosen.
  const auto seen = choices(sp, {}, 4, 200);
  EXPECT_EQ(std::set<int32_t>(seen.begin(), seen.end()).size(), 4u);
}

TEST(StickyPartitioner, SwitchWaitsForABatchBoundaryUpToTwiceBatchSize) {
  StickyPartitioner sp(1000, 7);
  const int32_t p = sp.partition("t", {}, 4);
  EXPECT_FALSE(sp.on_append("t", p, 1500, false));  // past batch.size, batch not full
  EXPECT_EQ(sp.current("t"), p);
  EXPECT_TRUE(sp.on_append("t", p, 0, true));  // the deferred switch, on a boundary

  const int32_t q = sp.partition("t", {}, 4);
  EXPECT_FALSE(sp.on_append("t", q, 1999, false));
  EXPECT_TRUE(sp.on_append("t", q, 1, false));  // 2 * batch.size: switch anyway
}

TEST(StickyPartitioner, IgnoresAppendsToOtherPartitionsAndTopics) {
  StickyPartitioner sp(100, 3);
  const int32_t p = sp.partition("t", {}, 5);
  EXPECT_FALSE(sp.on_append("t", (p + 1) % 5, 1000, true));
  EXPECT_FALSE(sp.on_append("other", p, 1000, true));
  EXPECT_EQ(sp.current("t"), p);
  EXPECT_EQ(sp.current("other"), -1);
  // Topics keep their own partition and byte count.
  const int32_t o = sp.partition("other", {}, 5);
  EXPECT_FALSE(sp.on_append("other", o, 99, true));
  EXPECT_FALSE(sp.on_append("t", p, 99, true));
  EXPECT_TRUE(sp.on_append("other", o, 1, true));
  EXPECT_EQ(sp.current("t"), p);
}

TEST(StickyPartitioner, PicksOnlyAvailablePartitions) {
  StickyPartitioner sp(10, 11);
  const std::vector<int32_t> available = {2, 5, 9};
  const auto seen = choices(sp, available, 10, 300);
  const std::set<int32_t> distinct(seen.begin(), seen.end());
  EXPECT_EQ(distinct, std::set<int32_t>(available.begin(), available.end()));
}

TEST(StickyPartitioner, AllPartitionsWhenNoneIsAvailable) {
  StickyPartitioner sp(10, 11);
  const auto seen = choices(sp, {}, 6, 300);
  EXPECT_EQ(std::set<int32_t>(seen.begin(), seen.end()).size(), 6u);
  // Entries out of range do not count as available.
  const auto seen2 = choices(sp, {-1, 6, 40}, 6, 300);
  EXPECT_EQ(std::set<int32_t>(seen2.begin(), seen2.end()).size(), 6u);
}

TEST(StickyPartitioner, NeverOutOfRange) {
  StickyPartitioner sp(50, 5);
  SplitMix64 rng{99};
  for (int i = 0; i < 5000; ++i) {
    const auto n = static_cast<int32_t>(1 + rng.next() % 20);
    std::vector<int32_t> available;
    for (uint64_t k = rng.next() % 6; k > 0; --k) {
      available.push_back(static_cast<int32_t>(rng.next() % 30) - 5);
    }
    const int32_t p = sp.partition("t", available, n);
    ASSERT_GE(p, 0);
    ASSERT_LT(p, n);
    sp.on_append("t", p, static_cast<int32_t>(rng.next() % 40), rng.next() % 2 == 0);
  }
  EXPECT_EQ(sp.partition("t", {}, 0), -1);
}

TEST(StickyPartitioner, BatchSizeBelowOneCountsAsOne) {
  StickyPartitioner sp(0, 1);
  EXPECT_EQ(sp.batch_size(), 1);
  const int32_t p = sp.partition("t", {}, 3);
  EXPECT_TRUE(sp.on_append("t", p, 1, true));
}

}  // namespace
}  // namespace spool::client
