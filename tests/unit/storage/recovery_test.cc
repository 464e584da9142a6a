#include <gtest/gtest.h>

#include <fstream>

#include "storage/file_util.h"
#include "storage/log.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using namespace testing;

void corrupt_byte(const std::string& path, int64_t pos) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(pos);
  char c;
  f.get(c);
  f.seekp(pos);
  f.put(static_cast<char>(c ^ 0x5a));
}

void expect_readable(Log& log) {
  for (int64_t off = log.log_start_offset(); off < log.log_end_offset(); ++off) {
    auto r = log.read(off, 1, INT64_MAX, true);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    auto bs = batches_in(r->records);
    ASSERT_EQ(bs.size(), 1u);
    EXPECT_LE(bs[0].first, off);
    EXPECT_GE(bs[0].second, off);
  }
}

TEST(Recovery, TornTailIsTruncated) {
  TempDir d;
  std::string dir = d.sub("t-0");
  {
    auto log = open_log(dir, LogConfig{});
    for (int i = 0; i < 5; ++i) append(*log, 2);
    EXPECT_EQ(log->log_end_offset(), 10);
  }  // no close(), no flush: a crash
  Bytes half = make_batch(3);
  record::set_base_offset(half.data(), 10);
  half.resize(half.size() / 2);
  append_bytes_to(seg_path(dir, 0, ".log"), half);
  auto log = open_log(dir, LogConfig{}, /*clean=*/false, /*recovery_point=*/0);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->log_end_offset(), 10);
  EXPECT_EQ(log->flushed_offset(), 10);
  EXPECT_EQ(append(*log, 1).first_offset, 10);
  expect_readable(*log);
}

TEST(Recovery, GarbageTailIsTruncated) {
  TempDir d;
  std::string dir = d.sub("t-0");
  { auto log = open_log(dir, LogConfig{}); append(*log, 4); }
  append_bytes_to(seg_path(dir, 0, ".log"), Bytes(100, 0xee));
  auto log = open_log(dir, LogConfig{}, false, 0);
  EXPECT_EQ(log->log_end_offset(), 4);
  EXPECT_EQ(append(*log, 1).first_offset, 4);
}

TEST(Recovery, CorruptCrcInTheMiddleTruncatesThereAndDropsLaterSegments) {
  TempDir d;
  std::string dir = d.sub("t-0");
  int64_t seg1 = 0;
  int64_t corrupt_offset = 0;
  {
    auto log = open_log(dir, small_config());
    for (int i = 0; i < 40; ++i) append(*log, 2, 1000, 100);
    auto bases = log->segment_base_offsets();
    ASSERT_GE(bases.size(), 4u);
    seg1 = bases[1];
    // Corrupt the third batch of segment 1 (inside the CRC-covered part).
    auto r = log->read(seg1 + 4, 1, INT64_MAX, true);
    ASSERT_TRUE(r.is_ok());
    corrupt_offset = batches_in(r->records).at(0).first;
    Bytes one = make_batch(2, 1000, 100);
    corrupt_byte(seg_path(dir, seg1, ".log"), static_cast<int64_t>(one.size() * 2 + 40));
  }
  auto log = open_log(dir, small_config(), false, 0);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->log_end_offset(), corrupt_offset);
  EXPECT_EQ(log->segment_base_offsets().back(), seg1);
  EXPECT_FALSE(path_exists(seg_path(dir, log->log_end_offset() + 10, ".log")));
  expect_readable(*log);
  EXPECT_EQ(append(*log, 2).first_offset, corrupt_offset);
}

TEST(Recovery, OnlyScansFromTheRecoveryPoint) {
  TempDir d;
  std::string dir = d.sub("t-0");
  std::vector<int64_t> bases;
  {
    auto log = open_log(dir, small_config());
    for (int i = 0; i < 40; ++i) append(*log, 2, 1000, 100);
    ASSERT_TRUE(log->flush());
    bases = log->segment_base_offsets();
  }
  // Corruption below the recovery point goes unnoticed (not rescanned) ...
  corrupt_byte(seg_path(dir, 0, ".log"), 100);
  auto log = open_log(dir, small_config(), false, /*recovery_point=*/bases[2]);
  EXPECT_EQ(log->log_end_offset(), 80);
  log.reset();
  // ... but a scan from 0 finds it.
  log = open_log(dir, small_config(), false, 0);
  EXPECT_EQ(log->log_end_offset(), 0);
  EXPECT_EQ(log->segment_count(), 1u);
}

TEST(Recovery, MissingAndCorruptIndexesAreRebuilt) {
  TempDir d;
  std::string dir = d.sub("t-0");
  std::vector<int64_t> bases;
  {
    auto log = open_log(dir, small_config());
    for (int i = 0; i < 40; ++i) append(*log, 2, 1000 + i, 100);
    ASSERT_TRUE(log->flush());
    ASSERT_TRUE(log->close());
    bases = log->segment_base_offsets();
  }
  ASSERT_GE(bases.size(), 3u);
  auto idx_size = std::filesystem::file_size(seg_path(dir, bases[0], ".index"));
  ASSERT_GT(idx_size, 0u);
  std::filesystem::remove(seg_path(dir, bases[0], ".index"));
  std::filesystem::remove(seg_path(dir, bases[1], ".timeindex"));
  {
    std::ofstream f(seg_path(dir, bases[2], ".index"), std::ios::binary | std::ios::trunc);
    f << "this is not an index!!!!";
  }
  auto log = open_log(dir, small_config(), /*clean=*/true);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->log_end_offset(), 80);
  EXPECT_EQ(std::filesystem::file_size(seg_path(dir, bases[0], ".index")), idx_size);
  EXPECT_GT(std::filesystem::file_size(seg_path(dir, bases[1], ".timeindex")), 0u);
  expect_readable(*log);
  auto ts = log->offset_for_timestamp(1000 + 20);
  ASSERT_TRUE(ts);
  EXPECT_EQ(ts->first, 39);  // batch 19 holds timestamps 1019, 1020
}

TEST(Recovery, CleanReopenKeepsEverything) {
  TempDir d;
  std::string dir = d.sub("t-0");
  {
    auto log = open_log(dir, small_config());
    for (int i = 0; i < 40; ++i) append(*log, 2, 1000 + i, 100, 3);
    ASSERT_TRUE(log->flush());
    ASSERT_TRUE(log->close());
    EXPECT_FALSE(log->append(std::span<uint8_t>(), 0, 0).is_ok());
  }
  EXPECT_TRUE(path_exists(dir + "/leader-epoch-checkpoint"));
  auto log = open_log(dir, small_config(), true);
  EXPECT_EQ(log->log_end_offset(), 80);
  EXPECT_EQ(log->latest_epoch(), 3);
  EXPECT_EQ(append(*log, 1).first_offset, 80);
  expect_readable(*log);
  auto m = log->max_timestamp_offset();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->second, 1000 + 39 + 1);
}

TEST(Recovery, EpochCacheRebuiltFromBatches) {
  TempDir d;
  std::string dir = d.sub("t-0");
  {
    auto log = open_log(dir, small_config());
    append(*log, 2, 1000, 10, 1);
    append(*log, 2, 1000, 10, 4);
  }
  std::filesystem::remove(dir + "/leader-epoch-checkpoint");
  auto log = open_log(dir, small_config(), false, 0);
  EXPECT_EQ(log->latest_epoch(), 4);
  EXPECT_EQ(log->end_offset_for_epoch(1), std::make_pair(1, int64_t{2}));
}

TEST(Recovery, StrayFilesAreHandled) {
  TempDir d;
  std::string dir = d.sub("t-0");
  { auto log = open_log(dir, small_config()); append(*log, 3); }
  append_bytes_to(dir + "/00000000000000000050.index", Bytes(16, 1));   // orphan index
  append_bytes_to(dir + "/00000000000000000000.log.cleaned", Bytes(10, 1));
  append_bytes_to(dir + "/00000000000000000000.log.deleted", Bytes(10, 1));
  append_bytes_to(dir + "/notes.txt", Bytes(3, 'x'));
  auto log = open_log(dir, small_config(), false, 0);
  EXPECT_EQ(log->log_end_offset(), 3);
  EXPECT_FALSE(path_exists(dir + "/00000000000000000050.index"));
  EXPECT_FALSE(path_exists(dir + "/00000000000000000000.log.cleaned"));
  EXPECT_FALSE(path_exists(dir + "/00000000000000000000.log.deleted"));
}

TEST(Recovery, SwapFileReplacesSegments) {
  TempDir d;
  std::string dir = d.sub("t-0");
  Bytes swap;
  {
    auto log = open_log(dir, small_config());
    for (int i = 0; i < 3; ++i) append(*log, 2);
    auto r = log->read(0, 1 << 20, INT64_MAX, false);
    swap = r->records;
  }
  std::filesystem::remove(seg_path(dir, 0, ".log"));
  append_bytes_to(seg_path(dir, 0, ".log") + ".swap", swap);
  auto log = open_log(dir, small_config(), false, 0);
  EXPECT_EQ(log->log_end_offset(), 6);
  EXPECT_FALSE(path_exists(seg_path(dir, 0, ".log") + ".swap"));
}

TEST(Recovery, RandomBytesNeverCrash) {
  TempDir d;
  std::string dir = d.sub("t-0");
  std::filesystem::create_directories(dir);
  uint32_t x = 12345;
  Bytes noise(20000);
  for (auto& b : noise) {
    x = x * 1103515245 + 12345;
    b = static_cast<uint8_t>(x >> 16);
  }
  append_bytes_to(seg_path(dir, 0, ".log"), noise);
  append_bytes_to(seg_path(dir, 0, ".index"), Bytes(noise.begin(), noise.begin() + 800));
  append_bytes_to(seg_path(dir, 0, ".timeindex"), Bytes(noise.begin(), noise.begin() + 1200));
  append_bytes_to(dir + "/leader-epoch-checkpoint", Bytes(noise.begin(), noise.begin() + 50));
  for (bool clean : {true, false}) {
    auto log = open_log(dir, small_config(), clean, 0);
    ASSERT_TRUE(log);
    EXPECT_EQ(log->log_end_offset(), 0);
    EXPECT_EQ(append(*log, 1).first_offset, 0);
    log.reset();
    std::filesystem::remove(seg_path(dir, 0, ".log"));
    append_bytes_to(seg_path(dir, 0, ".log"), noise);
  }
}

TEST(Recovery, CheckpointedStartBeyondDataStartsEmpty) {
  TempDir d;
  std::string dir = d.sub("t-0");
  { auto log = open_log(dir, small_config()); append(*log, 3); }
  auto log = open_log(dir, small_config(), false, 0, /*log_start=*/50);
  EXPECT_EQ(log->log_start_offset(), 50);
  EXPECT_EQ(log->log_end_offset(), 50);
  EXPECT_EQ(append(*log, 1).first_offset, 50);
}

}  // namespace
}  // namespace spool::storage
