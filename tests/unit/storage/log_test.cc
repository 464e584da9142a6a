#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "record/batch_header.h"
#include "storage/file_util.h"
#include "storage/log.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using namespace testing;

TEST(Log, AppendAssignsOffsetsAndReadsBack) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  ASSERT_TRUE(log);
  EXPECT_EQ(log->log_end_offset(), 0);
  auto a = append(*log, 3, 1000, 10, 4);
  EXPECT_EQ(a.first_offset, 0);
  EXPECT_EQ(a.last_offset, 2);
  EXPECT_EQ(a.log_append_time_ms, -1);
  auto b = append(*log, 2);
  EXPECT_EQ(b.first_offset, 3);
  EXPECT_EQ(log->log_end_offset(), 5);
  auto r = log->read(0, 1 << 20, INT64_MAX, false);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(batches_in(r->records), (std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {3, 4}}));
  EXPECT_EQ(r->log_end_offset, 5);
  // The stored batch is byte-for-byte valid (CRC untouched by the rewrite).
  auto h = record::validate_batch(r->records);
  ASSERT_TRUE(h.is_ok()) << h.status().message();
  EXPECT_EQ(h->partition_leader_epoch, 4);
  // Offset in the middle of a batch returns the whole batch.
  r = log->read(4, 1 << 20, INT64_MAX, false);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(batches_in(r->records), (std::vector<std::pair<int64_t, int64_t>>{{3, 4}}));
  // At the end: empty; beyond: OFFSET_OUT_OF_RANGE.
  r = log->read(5, 1 << 20, INT64_MAX, false);
  ASSERT_TRUE(r.is_ok());
  EXPECT_TRUE(r->records.empty());
  r = log->read(6, 1 << 20, INT64_MAX, false);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().kafka_code(), 1);
  EXPECT_FALSE(log->read(-1, 100, INT64_MAX, false).is_ok());
}

TEST(Log, RejectsMalformedInput) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  Bytes junk(30, 0xab);
  EXPECT_FALSE(log->append(std::span<uint8_t>(junk), 1, 0).is_ok());
  Bytes b = make_batch(2);
  b.resize(b.size() - 5);  // truncated
  EXPECT_FALSE(log->append(std::span<uint8_t>(b), 2, 0).is_ok());
  Bytes empty;
  EXPECT_FALSE(log->append(std::span<uint8_t>(empty), 0, 0).is_ok());
  Bytes big = make_batch(1, 1000, 5000);  // larger than segment.bytes
  auto r = log->append(std::span<uint8_t>(big), 1, 0);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().kafka_code(), 18);
  EXPECT_EQ(log->log_end_offset(), 0);
}

TEST(Log, RollsBySizeAndReadsAcrossSegments) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  for (int i = 0; i < 40; ++i) append(*log, 2, 1000 + i, 100);
  EXPECT_GT(log->segment_count(), 5u);
  for (int64_t base : log->segment_base_offsets()) {
    EXPECT_TRUE(path_exists(seg_path(log->dir(), base, ".log")));
    EXPECT_TRUE(path_exists(seg_path(log->dir(), base, ".index")));
    EXPECT_TRUE(path_exists(seg_path(log->dir(), base, ".timeindex")));
  }
  EXPECT_LE(std::filesystem::file_size(seg_path(log->dir(), 0, ".log")), 2048u);
  // Sealed segments have trimmed indexes (multiple of the entry size, small).
  EXPECT_LT(std::filesystem::file_size(seg_path(log->dir(), 0, ".index")), 4096u);
  // Every offset reads back from its own batch, across all segments.
  for (int64_t off = 0; off < 80; ++off) {
    auto r = log->read(off, 300, INT64_MAX, true);
    ASSERT_TRUE(r.is_ok());
    auto bs = batches_in(r->records);
    ASSERT_FALSE(bs.empty());
    EXPECT_EQ(bs[0].first, off - off % 2);
  }
  auto all = log->read(0, 1 << 20, INT64_MAX, false);
  ASSERT_TRUE(all.is_ok());
  auto bs = batches_in(all->records);
  ASSERT_EQ(bs.size(), 40u);
  for (size_t i = 0; i < bs.size(); ++i) EXPECT_EQ(bs[i].first, static_cast<int64_t>(2 * i));
}

TEST(Log, ReadBoundsMaxBytesMinOneAndHighWatermark) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  for (int i = 0; i < 10; ++i) append(*log, 1, 1000, 50);
  Bytes one = make_batch(1, 1000, 50);
  size_t bsz = one.size();
  auto r = log->read(0, static_cast<int32_t>(bsz * 3 + bsz / 2), INT64_MAX, false);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(batches_in(r->records).size(), 3u);  // whole batches only
  r = log->read(0, 10, INT64_MAX, false);
  ASSERT_TRUE(r.is_ok());
  EXPECT_TRUE(r->records.empty());
  r = log->read(0, 10, INT64_MAX, true);  // min_one: the first batch anyway
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(batches_in(r->records).size(), 1u);
  r = log->read(2, 1 << 20, 5, false);  // HW 5: offsets 2,3,4
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(batches_in(r->records), (std::vector<std::pair<int64_t, int64_t>>{{2, 2}, {3, 3}, {4, 4}}));
  r = log->read(5, 1 << 20, 5, true);  // at the HW: nothing, even with min_one
  ASSERT_TRUE(r.is_ok());
  EXPECT_TRUE(r->records.empty());
}

TEST(Log, HighWatermarkExcludesPartiallyCommittedBatch) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  append(*log, 5);
  auto r = log->read(0, 1 << 20, 3, true);
  ASSERT_TRUE(r.is_ok());
  EXPECT_TRUE(r->records.empty());
}

TEST(Log, OffsetForTimestamp) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  // 30 batches of 3 records; batch i has timestamps 10000 + 100*i + {0,1,2}.
  for (int i = 0; i < 30; ++i) append(*log, 3, 10000 + 100 * i, 60);
  ASSERT_GT(log->segment_count(), 1u);
  auto r = log->offset_for_timestamp(0);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, std::make_pair(int64_t{0}, int64_t{10000}));
  r = log->offset_for_timestamp(10000 + 100 * 17 + 1);  // exact record inside batch 17
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, std::make_pair(int64_t{17 * 3 + 1}, int64_t{10000 + 100 * 17 + 1}));
  r = log->offset_for_timestamp(10000 + 100 * 17 + 50);  // between batches: next batch's first
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, std::make_pair(int64_t{18 * 3}, int64_t{10000 + 100 * 18}));
  EXPECT_FALSE(log->offset_for_timestamp(10000 + 100 * 29 + 3));
  auto m = log->max_timestamp_offset();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->second, 10000 + 100 * 29 + 2);
  EXPECT_EQ(m->first, 89);
}

TEST(Log, OffsetForTimestampInCompressedBatch) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), LogConfig{});
  Bytes b = make_batch(10, 5000, 10, record::Compression::kGzip);
  ASSERT_TRUE(log->append(std::span<uint8_t>(b), 10, 0).is_ok());
  auto r = log->offset_for_timestamp(5004);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, std::make_pair(int64_t{4}, int64_t{5004}));
}

TEST(Log, LogAppendTimeRewritesTimestampAndCrc) {
  TempDir d;
  LogConfig c = small_config();
  c.timestamp_log_append_time = true;
  auto log = open_log(d.sub("t-0"), c);
  log->set_clock([] { return int64_t{777777}; });
  auto a = append(*log, 2, 1000);
  EXPECT_EQ(a.log_append_time_ms, 777777);
  auto r = log->read(0, 1 << 20, INT64_MAX, false);
  ASSERT_TRUE(r.is_ok());
  auto h = record::validate_batch(r->records);
  ASSERT_TRUE(h.is_ok()) << h.status().message();
  EXPECT_TRUE(h->log_append_time());
  EXPECT_EQ(h->max_timestamp, 777777);
  EXPECT_EQ(log->offset_for_timestamp(777000), std::make_optional(std::make_pair(int64_t{0}, int64_t{777777})));
}

TEST(Log, RollsByTime) {
  TempDir d;
  LogConfig c;
  c.segment_ms = 1000;
  auto log = open_log(d.sub("t-0"), c);
  int64_t now = 1'000'000;
  log->set_clock([&] { return now; });
  append(*log, 1);
  now += 500;
  append(*log, 1);
  EXPECT_EQ(log->segment_count(), 1u);
  now += 600;
  append(*log, 1);
  EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 2}));
}

TEST(Log, RollsWhenIndexFull) {
  TempDir d;
  LogConfig c;
  c.index_interval_bytes = 1;
  c.segment_index_bytes = 64;  // 8 offset entries, 5 time entries
  auto log = open_log(d.sub("t-0"), c);
  for (int i = 0; i < 30; ++i) append(*log, 1, 1000 + i);
  EXPECT_GT(log->segment_count(), 2u);
  for (int64_t off = 0; off < 30; ++off) {
    auto r = log->read(off, 1, INT64_MAX, true);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(batches_in(r->records).at(0).first, off);
  }
}

TEST(Log, TruncateAndFollowerAppend) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  for (int i = 0; i < 30; ++i) append(*log, 2, 1000, 100, i / 10);
  ASSERT_GT(log->segment_count(), 2u);
  ASSERT_TRUE(log->truncate_to(31));  // inside batch [30,31]: whole batch goes
  EXPECT_EQ(log->log_end_offset(), 30);
  EXPECT_EQ(log->end_offset_for_epoch(1), std::make_pair(1, int64_t{30}));
  EXPECT_EQ(log->latest_epoch(), 1);
  auto r = log->read(28, 1 << 20, INT64_MAX, false);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(batches_in(r->records), (std::vector<std::pair<int64_t, int64_t>>{{28, 29}}));
  // Follower append keeps offsets from the leader.
  Bytes b = make_batch(3);
  record::set_base_offset(b.data(), 30);
  record::set_partition_leader_epoch(b.data(), 7);
  auto f = log->append_as_follower(b);
  ASSERT_TRUE(f.is_ok()) << f.status().message();
  EXPECT_EQ(f->first_offset, 30);
  EXPECT_EQ(log->log_end_offset(), 33);
  EXPECT_EQ(log->latest_epoch(), 7);
  record::set_base_offset(b.data(), 10);
  EXPECT_FALSE(log->append_as_follower(b).is_ok());
  // Truncating below the first segment starts over.
  ASSERT_TRUE(log->truncate_to(0));
  EXPECT_EQ(log->log_end_offset(), 0);
  EXPECT_EQ(log->segment_count(), 1u);
  EXPECT_EQ(append(*log, 1).first_offset, 0);
}

TEST(Log, AdvanceLogStartOffset) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  for (int i = 0; i < 30; ++i) append(*log, 2, 1000, 100);
  size_t before = log->segment_count();
  ASSERT_TRUE(log->advance_log_start_offset(25));
  EXPECT_EQ(log->log_start_offset(), 25);
  EXPECT_LT(log->segment_count(), before);
  EXPECT_FALSE(log->read(24, 100, INT64_MAX, true).is_ok());
  auto r = log->read(25, 1 << 20, INT64_MAX, false);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(batches_in(r->records).at(0).first, 24);  // whole batch holding 25
  EXPECT_FALSE(log->advance_log_start_offset(1000).is_ok());
}

TEST(Log, ConcurrentAppendersAndReaders) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  constexpr int kWriters = 3, kPerWriter = 150;
  std::atomic<bool> done{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < 2; ++i) {
    readers.emplace_back([&] {
      while (!done) {
        int64_t end = log->log_end_offset();
        int64_t next = 0;
        while (next < end) {
          auto r = log->read(next, 2048, end, true);
          if (!r) { errors++; break; }
          auto bs = batches_in(r->records);
          if (bs.empty()) { errors++; break; }
          for (auto [b, l] : bs) {
            if (b > next || l < next) errors++;
            next = l + 1;
          }
        }
      }
    });
  }
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&] {
      for (int i = 0; i < kPerWriter; ++i) {
        Bytes b = make_batch(2, 1000 + i, 30);
        if (!log->append(std::span<uint8_t>(b), 2, 0)) errors++;
      }
    });
  }
  for (auto& t : writers) t.join();
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(log->log_end_offset(), kWriters * kPerWriter * 2);
  auto all = log->read(0, INT32_MAX, INT64_MAX, false);
  ASSERT_TRUE(all.is_ok());
  auto bs = batches_in(all->records);
  ASSERT_EQ(bs.size(), static_cast<size_t>(kWriters * kPerWriter));
  for (size_t i = 0; i < bs.size(); ++i) EXPECT_EQ(bs[i].first, static_cast<int64_t>(2 * i));
}

}  // namespace
}  // namespace spool::storage
