// Log::read_regions, the zero-copy read: the same batches as a plain model of
// Kafka's read over the segment files, byte for byte; regions that outlive
// their segment's file (retention, cleaner swap).
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "storage/file_util.h"
#include "compaction_util.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using namespace testing;

struct StoredBatch {
  int64_t base = 0;
  int64_t last = 0;
  Bytes bytes;
};

// Every batch of the log, in order, read straight from the .log files.
std::vector<StoredBatch> stored_batches(const Log& log) {
  std::vector<StoredBatch> out;
  for (int64_t base : log.segment_base_offsets()) {
    std::ifstream f(seg_path(log.dir(), base, ".log"), std::ios::binary);
    Bytes all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    size_t pos = 0;
    while (pos + record::kHeaderSize <= all.size()) {
      auto h = record::read_header(ByteSpan(all).subspan(pos));
      EXPECT_TRUE(h.is_ok());
      if (!h) break;
      out.push_back(StoredBatch{h->base_offset, h->last_offset(),
                                Bytes(all.begin() + static_cast<ptrdiff_t>(pos),
                                      all.begin() + static_cast<ptrdiff_t>(pos + h->total_size()))});
      pos += h->total_size();
    }
  }
  return out;
}

// Kafka's read, as a model: from the batch holding `offset`, whole batches
// below max_offset while they fit max_bytes; with min_one the first one
// regardless of size.
Bytes model_read(const std::vector<StoredBatch>& batches, int64_t offset, size_t max_bytes, int64_t max_offset,
                 bool min_one, int64_t& next_offset) {
  Bytes out;
  next_offset = -1;
  for (const auto& b : batches) {
    if (b.last < offset) continue;
    if (b.last >= max_offset) break;
    if (out.size() + b.bytes.size() > max_bytes && !(out.empty() && min_one)) break;
    out.insert(out.end(), b.bytes.begin(), b.bytes.end());
    next_offset = b.last + 1;
  }
  return out;
}

Bytes pread_regions(const RegionRead& r) {
  Bytes out;
  for (const auto& reg : r.regions) {
    size_t at = out.size();
    out.resize(at + static_cast<size_t>(reg.length));
    auto got = pread_full(reg.fd, out.data() + at, static_cast<size_t>(reg.length), reg.offset);
    EXPECT_TRUE(got.is_ok());
    if (got.is_ok()) {
      EXPECT_EQ(*got, static_cast<size_t>(reg.length));
    }
  }
  return out;
}

TEST(ReadRegions, MatchTheModelAcrossSegmentsLimitsAndBounds) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  std::mt19937 rng(17);
  for (int i = 0; i < 120; ++i) append(*log, 1 + static_cast<int>(rng() % 5), 1000 + i, 10 + rng() % 400);
  ASSERT_GT(log->segment_count(), 5u);
  const auto batches = stored_batches(*log);
  const int64_t end = log->log_end_offset();
  int checked = 0;
  for (int64_t offset = 0; offset < end; offset += 7) {
    for (int32_t max_bytes : {0, 1, 100, 700, 2048, 3000, 10000, 1 << 20}) {
      for (int64_t max_offset : {INT64_MAX, end / 2, offset + 3}) {
        for (bool min_one : {false, true}) {
          int64_t next = -1;
          Bytes want = model_read(batches, offset, static_cast<size_t>(max_bytes), max_offset, min_one, next);
          auto r = log->read_regions(offset, max_bytes, max_offset, min_one);
          ASSERT_TRUE(r.is_ok()) << r.status().message();
          SCOPED_TRACE("offset " + std::to_string(offset) + " max_bytes " + std::to_string(max_bytes) +
                       " max_offset " + std::to_string(max_offset) + " min_one " + std::to_string(min_one));
          ASSERT_EQ(r->bytes, want.size());
          ASSERT_EQ(pread_regions(*r), want);
          EXPECT_EQ(r->next_offset, next);
          // One region per segment touched, none empty.
          for (const auto& reg : r->regions) EXPECT_GT(reg.length, 0);
          // read() returns the same bytes.
          auto plain = log->read(offset, max_bytes, max_offset, min_one);
          ASSERT_TRUE(plain.is_ok());
          ASSERT_EQ(plain->records, want);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
  // A read spanning segments yields one region per segment.
  auto all = log->read_regions(0, 1 << 30, INT64_MAX, false);
  ASSERT_TRUE(all.is_ok());
  EXPECT_EQ(all->regions.size(), log->segment_count());
  EXPECT_EQ(all->next_offset, end);
  // Out of range, and at the end.
  auto bad = log->read_regions(end + 1, 100, INT64_MAX, true);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().kafka_code(), kOffsetOutOfRange);
  auto at_end = log->read_regions(end, 100, INT64_MAX, true);
  ASSERT_TRUE(at_end.is_ok());
  EXPECT_TRUE(at_end->regions.empty());
  EXPECT_EQ(at_end->next_offset, -1);
}

TEST(ReadRegions, RegionOutlivesItsSegmentDeletedByRetention) {
  TempDir d;
  LogConfig c = small_config();
  c.retention_bytes = 4096;
  c.retention_ms = -1;
  auto log = open_log(d.sub("t-0"), c);
  for (int i = 0; i < 60; ++i) append(*log, 2, 1000, 100);
  auto r = log->read_regions(0, 1 << 20, INT64_MAX, true);
  ASSERT_TRUE(r.is_ok());
  const Bytes before = pread_regions(*r);
  ASSERT_FALSE(before.empty());
  auto n = log->apply_retention(now_ms());
  ASSERT_TRUE(n.is_ok());
  ASSERT_GT(*n, 0);
  EXPECT_FALSE(path_exists(seg_path(log->dir(), 0, ".log")));
  EXPECT_FALSE(log->read(0, 100, INT64_MAX, true).is_ok());
  // The held regions still read the original bytes: the descriptors stayed open.
  EXPECT_EQ(pread_regions(*r), before);
  // Even once the log itself is gone.
  log.reset();
  EXPECT_EQ(pread_regions(*r), before);
}

TEST(ReadRegions, RegionOutlivesACleanerSwap) {
  TempDir d;
  LogConfig c;
  c.segment_bytes = 32 * 1024;
  c.index_interval_bytes = 1024;
  c.segment_index_bytes = 64 * 1024;
  c.cleanup_policy_compact = true;
  c.cleanup_policy_delete = false;
  auto log = open_log(d.sub("t-0"), c);
  constexpr int64_t kTs = 1'000'000;
  write_versions(*log, 2000, 4, 50, 0, kTs);
  // Roll so that everything written is cleanable.
  for (size_t segs = log->segment_count(); log->segment_count() == segs;)
    append_keyed(*log, {{"filler-" + std::to_string(log->log_end_offset()), std::string(100, 'f'), kTs}});
  auto r = log->read_regions(0, 1 << 30, log->segment_base_offsets().back(), true);
  ASSERT_TRUE(r.is_ok());
  const Bytes before = pread_regions(*r);
  ASSERT_GT(before.size(), 32u * 1024u);
  auto st = log->clean(kTs + 1000);
  ASSERT_TRUE(st.is_ok()) << st.status().message();
  ASSERT_TRUE(st->cleaned);
  auto after = log->read_regions(0, 1 << 30, log->segment_base_offsets().back(), true);
  ASSERT_TRUE(after.is_ok());
  EXPECT_LT(after->bytes, before.size());  // compacted: the live log changed
  EXPECT_EQ(pread_regions(*r), before);    // the held regions did not
}

}  // namespace
}  // namespace spool::storage
