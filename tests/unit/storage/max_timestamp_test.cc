// Log::max_timestamp_offset (ListOffsets MAX_TIMESTAMP, KIP-734): the first
// record carrying the log's largest timestamp, found inside its batch and
// across segments, with out-of-order timestamps inside a batch.
#include <gtest/gtest.h>

#include "test_util.h"

namespace spool::storage::testing {
namespace {

// One batch whose record i has timestamp ts[i].
Bytes batch_with(const std::vector<int64_t>& ts) {
  std::vector<record::BuildRecord> recs;
  for (int64_t t : ts) {
    record::BuildRecord r;
    r.value = Bytes{'v'};
    r.timestamp = t;
    recs.push_back(std::move(r));
  }
  auto b = record::build_batch(record::BatchOptions{}, recs);
  EXPECT_TRUE(b.is_ok());
  return b.is_ok() ? *b : Bytes{};
}

void append_ts(Log& log, const std::vector<int64_t>& ts) {
  Bytes b = batch_with(ts);
  ASSERT_TRUE(log.append(std::span<uint8_t>(b), static_cast<int32_t>(ts.size()), 0).is_ok());
}

TEST(MaxTimestamp, EmptyLogHasNone) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  EXPECT_FALSE(log->max_timestamp_offset());
}

TEST(MaxTimestamp, RecordInsideItsBatchNotTheBatchEnd) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  append_ts(*log, {1000, 1300, 1100});  // offsets 0-2: max at offset 1
  append_ts(*log, {900, 950});          // 3-4
  auto m = log->max_timestamp_offset();
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, std::make_pair(int64_t{1}, int64_t{1300}));
}

TEST(MaxTimestamp, FirstOfEqualMaximaAcrossBatchesAndSegments) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  // Many batches so that the log rolls; the maximum 50000 appears first in
  // batch 20 (second record) and again later.
  for (int i = 0; i < 40; ++i) {
    if (i == 20 || i == 33) {
      append_ts(*log, {10000 + i, 50000, 10000 + i});
    } else {
      append_ts(*log, {10000 + i, 10001 + i, 10002 + i});
    }
  }
  ASSERT_GT(log->segment_count(), 1u);
  auto m = log->max_timestamp_offset();
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, std::make_pair(int64_t{20 * 3 + 1}, int64_t{50000}));
}

TEST(MaxTimestamp, SurvivesReopen) {
  TempDir d;
  const std::string dir = d.sub("t-0");
  {
    auto log = open_log(dir, small_config());
    append_ts(*log, {5, 7000, 6});
    append_ts(*log, {8, 9});
    ASSERT_TRUE(log->close());
  }
  auto log = open_log(dir, small_config());
  auto m = log->max_timestamp_offset();
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, std::make_pair(int64_t{1}, int64_t{7000}));
}

}  // namespace
}  // namespace spool::storage::testing
