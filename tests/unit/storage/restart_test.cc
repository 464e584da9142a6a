// Restart after a crash with many partitions (issue 7): the LogManager
// recovers every partition with one file-system sync instead of fsyncs per
// partition, which must not cost correctness: torn tails are still cut,
// nothing that was flushed is lost, and the next start resumes at the
// recovered end. Plus: index lookups are served from the mapping alone.
#include <gtest/gtest.h>
#include <dirent.h>
#include <sys/stat.h>

#include <filesystem>

#include "storage/checkpoint.h"
#include "storage/file_util.h"
#include "storage/index_file.h"
#include "storage/log_manager.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using namespace testing;

constexpr int kPartitions = 40;

LogManager::Options opts(const TempDir& d) {
  LogManager::Options o;
  o.log_dirs.push_back(d.sub("data"));
  o.defaults = small_config();
  o.broker_id = 1;
  o.recovery_threads = 3;
  return o;
}

int64_t last_base(const std::string& dir) {
  int64_t best = -1;
  for (auto& e : std::filesystem::directory_iterator(dir))
    if (auto b = parse_segment_file_name(e.path().filename().string(), ".log")) best = std::max(best, *b);
  return best;
}

TEST(Restart, CrashWithManyPartitionsKeepsFlushedDataAndCutsTornTails) {
  TempDir d;
  auto o = opts(d);
  {
    auto m = LogManager::open(o);
    ASSERT_TRUE(m.is_ok()) << m.status().message();
    for (int p = 0; p < kPartitions; ++p) {
      auto log = (*m)->create("t", p, small_config());
      ASSERT_TRUE(log.is_ok());
      // p + 1 batches of 2 records (several segments for the larger p).
      for (int i = 0; i <= p; ++i) append(**log, 2, 1000, 100);
      ASSERT_TRUE((*log)->flush());  // what acks=all acknowledged
    }
    // The recovery-point checkpoint stays at 0 (written at open): every
    // partition is scanned at the next start, as after a kill -9.
    (*m)->halt();
  }
  // A torn batch at the tail of every other partition (a write cut short).
  Bytes half = make_batch(2, 1000, 100);
  half.resize(half.size() / 2);
  for (int p = 0; p < kPartitions; p += 2) {
    std::string dir = d.sub("data/t-" + std::to_string(p));
    append_bytes_to(seg_path(dir, last_base(dir), ".log"), half);
  }
  {
    auto m = LogManager::open(o);
    ASSERT_TRUE(m.is_ok()) << m.status().message();
    for (int p = 0; p < kPartitions; ++p) {
      auto log = (*m)->get("t", p);
      ASSERT_TRUE(log) << p;
      int64_t want = 2 * (p + 1);
      EXPECT_EQ(log->log_end_offset(), want) << p;
      // Recovered data is durable before the manager hands the log out.
      EXPECT_EQ(log->flushed_offset(), want) << p;
      auto r = log->read(0, 1 << 20, want, true);
      ASSERT_TRUE(r.is_ok()) << r.status().message();
      auto got = batches_in(r->records);
      // A read stops at a segment end; what it returned starts at 0, in order.
      ASSERT_FALSE(got.empty());
      EXPECT_EQ(got.front().first, 0);
      EXPECT_EQ(append(*log, 1).first_offset, want) << p;  // appends continue without a gap
    }
    // The checkpoint written at open carries the recovered ends, so the
    // next crash does not scan these bytes again.
    auto rp = read_offset_checkpoint(d.sub("data/recovery-point-offset-checkpoint"));
    ASSERT_TRUE(rp.is_ok());
    for (int p = 0; p < kPartitions; ++p) EXPECT_EQ(rp->at(TopicPartition{"t", p}), 2 * (p + 1)) << p;
    (*m)->halt();
  }
  // Crash again right away: nothing is lost, including the appends above.
  auto m = LogManager::open(o);
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  for (int p = 0; p < kPartitions; ++p) {
    auto log = (*m)->get("t", p);
    ASSERT_TRUE(log);
    // The record appended after the first restart was never flushed, but
    // the page cache survived this simulated crash: it stays.
    EXPECT_EQ(log->log_end_offset(), 2 * (p + 1) + 1) << p;
  }
}

TEST(Restart, TornTailIsCutExactlyAtTheLastWholeBatch) {
  TempDir d;
  auto o = opts(d);
  int64_t whole_size = 0;
  std::string dir = d.sub("data/t-0");
  {
    auto m = LogManager::open(o);
    ASSERT_TRUE(m.is_ok());
    auto log = (*m)->create("t", 0, small_config());
    for (int i = 0; i < 3; ++i) append(**log, 2, 1000, 50);
    (*m)->halt();
  }
  whole_size = static_cast<int64_t>(std::filesystem::file_size(seg_path(dir, last_base(dir), ".log")));
  Bytes torn = make_batch(3, 1000, 50);
  torn.resize(torn.size() - 1);  // all but the last byte
  append_bytes_to(seg_path(dir, last_base(dir), ".log"), torn);
  auto m = LogManager::open(o);
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  EXPECT_EQ((*m)->get("t", 0)->log_end_offset(), 6);
  EXPECT_EQ(static_cast<int64_t>(std::filesystem::file_size(seg_path(dir, last_base(dir), ".log"))), whole_size);
}

// Lookups use the mapping only: the index keeps no descriptor open, and a
// lookup still answers after the file is gone, so it cannot be reading it.
TEST(IndexLookup, ServedFromTheMappingWithoutTheFile) {
  TempDir d;
  std::string path = d.sub("00000000000000000100.index");
  auto f = IndexFile::open(path, OffsetIndex::kEntrySize, 4096, true);
  ASSERT_TRUE(f.is_ok());
  OffsetIndex idx(std::move(*f), 100);
  for (int i = 1; i <= 200; ++i) ASSERT_TRUE(idx.append(100 + 3 * i, 50 * i));
  ASSERT_TRUE(idx.file().remove());
  ASSERT_FALSE(path_exists(path));
  EXPECT_EQ(idx.lookup(99).offset, 100);
  EXPECT_EQ(idx.lookup(99).position, 0);
  EXPECT_EQ(idx.lookup(103).position, 50);
  EXPECT_EQ(idx.lookup(104).position, 50);
  EXPECT_EQ(idx.lookup(400).position, 50 * 100);
  EXPECT_EQ(idx.lookup(10'000).position, 50 * 200);
  EXPECT_EQ(idx.lookup(10'000, 50 * 150).position, 50 * 149);

  std::string tpath = d.sub("00000000000000000100.timeindex");
  auto tf = IndexFile::open(tpath, TimeIndex::kEntrySize, 4096, true);
  ASSERT_TRUE(tf.is_ok());
  TimeIndex tidx(std::move(*tf), 100);
  for (int i = 1; i <= 100; ++i) ASSERT_TRUE(tidx.maybe_append(1000 + 10 * i, 100 + i));
  ASSERT_TRUE(tidx.file().remove());
  EXPECT_EQ(tidx.lookup(1015).offset, 101);
  EXPECT_EQ(tidx.lookup(5).offset, 100);
  EXPECT_EQ(tidx.lookup(1'000'000).offset, 200);
}

// After a crash a preallocated index reads as full of (zero) entries;
// recovery clears it. Clearing must zero the file without writing (and so
// making resident and dirty) every page: the range is deallocated.
TEST(IndexLookup, ClearingDeallocatesInsteadOfWritingZeros) {
  TempDir d;
  std::string path = d.sub("00000000000000000000.index");
  constexpr size_t kBytes = 4 << 20;
  append_bytes_to(path, Bytes(kBytes, 0x5a));  // stale "entries" everywhere
  auto f = IndexFile::open(path, OffsetIndex::kEntrySize, kBytes, true);
  ASSERT_TRUE(f.is_ok());
  ASSERT_EQ((*f)->entries(), kBytes / OffsetIndex::kEntrySize);
  (*f)->truncate_entries(1);
  EXPECT_EQ((*f)->entries(), 1u);
  ASSERT_TRUE((*f)->sync());
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(static_cast<size_t>(st.st_size), kBytes);  // still preallocated
  EXPECT_LT(static_cast<size_t>(st.st_blocks) * 512, kBytes / 4) << "the cleared range was written, not punched";
  // The first entry survives; the rest reads as zero through the mapping
  // and from the file.
  EXPECT_EQ((*f)->entry(0)[0], 0x5a);
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(load_be64((*f)->entry(i)), 0) << i;
  EXPECT_EQ(load_be64((*f)->entry(kBytes / OffsetIndex::kEntrySize - 1)), 0);
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(kBytes / 2));
  char c = 1;
  in.read(&c, 1);
  EXPECT_EQ(c, 0);
}

}  // namespace
}  // namespace spool::storage
