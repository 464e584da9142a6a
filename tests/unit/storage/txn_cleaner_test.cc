// Compaction with transactions: aborted transactional batches are dropped,
// committed ones and every marker stay whole, and the .txnindex entries of
// the cleaned segments move to the cleaned segment, so read_committed
// answers (aborted list, LSO) are the same before and after cleaning.
#include <gtest/gtest.h>

#include "compaction_util.h"
#include "record/batch_builder.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using testing::TempDir;

constexpr int64_t kTs = 1'700'000'000'000;

Bytes txn_batch(int64_t pid, int32_t seq, const std::string& key, const std::string& value) {
  record::BuildRecord r;
  r.key = Bytes(key.begin(), key.end());
  r.value = Bytes(value.begin(), value.end());
  r.timestamp = kTs;
  record::BatchOptions o;
  o.transactional = true;
  o.producer_id = pid;
  o.producer_epoch = 0;
  o.base_sequence = seq;
  auto b = record::build_batch(o, std::span<const record::BuildRecord>(&r, 1));
  EXPECT_TRUE(b.is_ok());
  return b.is_ok() ? *b : Bytes{};
}

TEST(TxnCleanerTest, AbortedDataGoesMarkersAndIndexStay) {
  TempDir d;
  LogConfig c;
  c.segment_bytes = 4096;
  c.index_interval_bytes = 1024;
  c.segment_index_bytes = 64 * 1024;
  c.cleanup_policy_compact = true;
  c.cleanup_policy_delete = false;
  c.min_cleanable_dirty_ratio = 0.0;
  auto log = testing::open_log(d.sub("t-0"), c);
  ASSERT_TRUE(log);
  Bytes a = txn_batch(1, 0, "k", "aborted");
  ASSERT_TRUE(log->append(std::span<uint8_t>(a), 1, 0));                  // 0
  Bytes b = txn_batch(2, 0, "k", "committed");
  ASSERT_TRUE(log->append(std::span<uint8_t>(b), 1, 0));                  // 1
  ASSERT_TRUE(log->append_txn_marker(1, 0, /*commit=*/false, 0, 0));     // 2
  ASSERT_TRUE(log->append_txn_marker(2, 0, /*commit=*/true, 0, 0));      // 3
  // Later plain versions of other keys, enough to roll a few segments.
  for (int i = 0; log->segment_count() < 3; ++i)
    testing::append_keyed(*log, {{"filler-" + std::to_string(i % 5), std::string(200, 'f'), kTs}});
  ASSERT_EQ(log->collect_aborted_txns(0, 4).size(), 1u);
  auto st = log->clean(kTs);
  ASSERT_TRUE(st.is_ok()) << st.status().message();
  ASSERT_TRUE(st->cleaned);
  auto recs = testing::read_all(*log);
  std::vector<std::string> txn_values;
  int markers = 0;
  for (const auto& r : recs) {
    if (r.batch_attributes & record::kControlBit) ++markers;
    else if (r.batch_attributes & record::kTransactionalBit) txn_values.push_back(r.value.value_or(""));
  }
  EXPECT_EQ(txn_values, std::vector<std::string>{"committed"});
  EXPECT_EQ(markers, 2);
  auto aborted = log->collect_aborted_txns(0, 4);
  ASSERT_EQ(aborted.size(), 1u) << "the cleaned segment carries the abort's index entry";
  EXPECT_EQ(aborted[0].producer_id, 1);
  EXPECT_EQ(aborted[0].last_offset, 2);
  // Older filler versions were compacted as usual.
  int fillers = 0;
  for (const auto& r : recs)
    if (r.key.rfind("filler-", 0) == 0 && r.offset < log->segment_base_offsets().back()) ++fillers;
  EXPECT_LE(fillers, 5);
}

}  // namespace
}  // namespace spool::storage
