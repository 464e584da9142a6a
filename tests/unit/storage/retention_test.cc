#include <gtest/gtest.h>

#include "storage/file_util.h"
#include "storage/log_manager.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using namespace testing;

TEST(Retention, BySizeDeletesOldestSegments) {
  TempDir d;
  LogConfig c = small_config();
  c.retention_bytes = 8192;
  c.retention_ms = -1;
  auto log = open_log(d.sub("t-0"), c);
  for (int i = 0; i < 60; ++i) append(*log, 2, 1000, 100);
  int64_t before = log->size_bytes();
  auto n = log->apply_retention(now_ms());
  ASSERT_TRUE(n.is_ok());
  EXPECT_GT(*n, 0);
  EXPECT_LE(log->size_bytes(), 8192 + 4096);
  EXPECT_LT(log->size_bytes(), before);
  EXPECT_EQ(log->log_start_offset(), log->segment_base_offsets().front());
  EXPECT_FALSE(path_exists(seg_path(log->dir(), 0, ".log")));
  EXPECT_FALSE(log->read(0, 100, INT64_MAX, true).is_ok());
  EXPECT_TRUE(log->read(log->log_start_offset(), 100, INT64_MAX, true).is_ok());
}

TEST(Retention, ByTimeNeverDeletesTheActiveSegment) {
  TempDir d;
  LogConfig c = small_config();
  c.retention_ms = 1000;
  auto log = open_log(d.sub("t-0"), c);
  for (int i = 0; i < 20; ++i) append(*log, 2, 5000 + i, 100);  // old timestamps
  for (int i = 0; i < 20; ++i) append(*log, 2, 100000 + i, 100); // recent
  size_t segs = log->segment_count();
  auto n = log->apply_retention(100500);
  ASSERT_TRUE(n.is_ok());
  EXPECT_GT(*n, 0);
  EXPECT_LT(log->segment_count(), segs);
  // Everything left holds a timestamp within retention (the first survivor
  // may straddle old and new).
  EXPECT_LE(log->log_start_offset(), 40);
  // Far in the future: all but the active segment go.
  n = log->apply_retention(10'000'000);
  ASSERT_TRUE(n.is_ok());
  EXPECT_EQ(log->segment_count(), 1u);
  EXPECT_EQ(log->log_end_offset(), 80);
  EXPECT_EQ(append(*log, 1).first_offset, 80);
}

TEST(Retention, LogStartOffsetSurvivesReopen) {
  TempDir d;
  LogManager::Options o;
  o.log_dirs = {d.sub("data")};
  o.defaults = small_config();
  o.defaults.retention_bytes = 4096;
  int64_t start = 0;
  {
    auto m = LogManager::open(o);
    ASSERT_TRUE(m.is_ok()) << m.status().message();
    auto log = (*m)->create("events", 0, o.defaults);
    ASSERT_TRUE(log.is_ok());
    for (int i = 0; i < 40; ++i) append(**log, 2, 1000, 100);
    ASSERT_TRUE((*m)->run_retention_once());
    start = (*log)->log_start_offset();
    EXPECT_GT(start, 0);
    auto text = read_small_file(d.sub("data/log-start-offset-checkpoint"));
    ASSERT_TRUE(text.is_ok());
    EXPECT_NE(text->find("events 0 " + std::to_string(start)), std::string::npos);
    (*m)->halt();  // crash: no flush, no marker
  }
  ASSERT_FALSE(path_exists(d.sub("data/.kafka_cleanshutdown")));
  auto m = LogManager::open(o);
  ASSERT_TRUE(m.is_ok());
  auto log = (*m)->get("events", 0);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->log_start_offset(), start);
  EXPECT_EQ(log->log_end_offset(), 80);
}

}  // namespace
}  // namespace spool::storage
