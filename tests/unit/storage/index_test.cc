#include <gtest/gtest.h>

#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using testing::TempDir;

std::unique_ptr<OffsetIndex> make_offset_index(const std::string& path, int64_t base, size_t max = 4096) {
  auto f = IndexFile::open(path, OffsetIndex::kEntrySize, max, true);
  EXPECT_TRUE(f.is_ok());
  return std::make_unique<OffsetIndex>(std::move(*f), base);
}

TEST(OffsetIndex, LookupExactBetweenAndBeforeFirst) {
  TempDir d;
  auto idx = make_offset_index(d.sub("a.index"), 100);
  ASSERT_TRUE(idx->append(110, 500));
  ASSERT_TRUE(idx->append(120, 1000));
  ASSERT_TRUE(idx->append(130, 1500));
  EXPECT_EQ(idx->lookup(120).offset, 120);
  EXPECT_EQ(idx->lookup(120).position, 1000);
  EXPECT_EQ(idx->lookup(125).position, 1000);   // between entries: floor
  EXPECT_EQ(idx->lookup(105).offset, 100);      // before the first: segment start
  EXPECT_EQ(idx->lookup(105).position, 0);
  EXPECT_EQ(idx->lookup(1000).position, 1500);  // past the last
  EXPECT_EQ(idx->lookup(1000, 1500).position, 1000);  // bounded by a reader's size
}

TEST(OffsetIndex, PersistsTrimsAndDetectsGarbage) {
  TempDir d;
  {
    auto idx = make_offset_index(d.sub("a.index"), 0);
    ASSERT_TRUE(idx->append(5, 300));
    ASSERT_TRUE(idx->append(9, 700));
    EXPECT_EQ(std::filesystem::file_size(d.sub("a.index")), 4096u);  // preallocated
    ASSERT_TRUE(idx->file().trim());
    EXPECT_EQ(std::filesystem::file_size(d.sub("a.index")), 16u);
  }
  auto f = IndexFile::open(d.sub("a.index"), OffsetIndex::kEntrySize, 4096, false);
  ASSERT_TRUE(f.is_ok());
  OffsetIndex idx(std::move(*f), 0);
  EXPECT_EQ(idx.entries(), 2u);
  EXPECT_TRUE(idx.sane(1000));
  EXPECT_FALSE(idx.sane(600));  // position beyond the log
  idx.truncate_to(9);
  EXPECT_EQ(idx.entries(), 1u);
  // An untrimmed (crashed) index holds zero entries: not sane.
  {
    auto g = IndexFile::open(d.sub("b.index"), OffsetIndex::kEntrySize, 64, true);
    ASSERT_TRUE(g.is_ok());
  }
  auto h = IndexFile::open(d.sub("b.index"), OffsetIndex::kEntrySize, 64, false);
  ASSERT_TRUE(h.is_ok());
  OffsetIndex zeros(std::move(*h), 0);
  EXPECT_EQ(zeros.entries(), 8u);
  EXPECT_FALSE(zeros.sane(100000));
}

TEST(TimeIndex, LookupAndMonotonic) {
  TempDir d;
  auto f = IndexFile::open(d.sub("a.timeindex"), TimeIndex::kEntrySize, 4096, true);
  ASSERT_TRUE(f.is_ok());
  TimeIndex idx(std::move(*f), 50);
  ASSERT_TRUE(idx.maybe_append(1000, 55));
  ASSERT_TRUE(idx.maybe_append(900, 57));  // not larger: ignored
  ASSERT_TRUE(idx.maybe_append(2000, 60));
  EXPECT_EQ(idx.entries(), 2u);
  EXPECT_EQ(idx.lookup(500).timestamp, -1);
  EXPECT_EQ(idx.lookup(500).offset, 50);
  EXPECT_EQ(idx.lookup(1500).offset, 55);
  EXPECT_EQ(idx.lookup(2000).offset, 60);
  EXPECT_TRUE(idx.sane(61));
  EXPECT_FALSE(idx.sane(60));
  idx.truncate_to(60);
  EXPECT_EQ(idx.entries(), 1u);
}

TEST(SegmentNames, FormatAndParse) {
  EXPECT_EQ(segment_file_name(123, ".log"), "00000000000000000123.log");
  EXPECT_EQ(parse_segment_file_name("00000000000000000123.log", ".log"), 123);
  EXPECT_FALSE(parse_segment_file_name("0000000000000000012x.log", ".log"));
  EXPECT_FALSE(parse_segment_file_name("123.log", ".log"));
  EXPECT_FALSE(parse_segment_file_name("00000000000000000123.index", ".log"));
  EXPECT_FALSE(parse_segment_file_name("99999999999999999999.log", ".log"));  // overflows int64
}

}  // namespace
}  // namespace spool::storage
