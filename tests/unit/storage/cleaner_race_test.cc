// The cleaner against changes made to the log while a pass runs: a group of
// segments changed under the pass is dropped, and then the pass must not
// leave a state where a tombstone can go while an older value of its key
// survives (the key would come back to life).
#include <gtest/gtest.h>

#include "compaction_util.h"
#include "util/sync_point.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using namespace testing;

constexpr int64_t kTs = 1'000'000;
constexpr int64_t kRetention = 60'000;

LogConfig config(int32_t segment_bytes) {
  LogConfig c;
  c.segment_bytes = segment_bytes;
  c.index_interval_bytes = 1024;
  c.segment_index_bytes = 64 * 1024;
  c.cleanup_policy_compact = true;
  c.cleanup_policy_delete = false;
  c.delete_retention_ms = kRetention;
  return c;
}

bool has_live_value(const Log& log, const std::string& key) {
  for (const auto& r : read_all(log))
    if (r.key == key && r.value) return true;
  return false;
}

TEST(CleanerRace, GroupDroppedUnderAPassKeepsTheCheckpointAndTheTombstoneWins) {
  TempDir d;
  // One segment each (rolled by segment.ms on a stepped clock): "a", "y",
  // then y's tombstone, which the segment filled up after it shares.
  auto cfg = config(32 * 1024);
  cfg.segment_ms = 1;
  auto log = open_log(d.sub("t-0"), cfg);
  int64_t clock = kTs;
  log->set_clock([&clock] { return clock; });
  std::string big(5000, 'v');
  append_keyed(*log, {{"a", big, kTs}});
  clock += 10;
  append_keyed(*log, {{"y", big, kTs}});
  clock += 10;
  append_keyed(*log, {{"y", std::nullopt, kTs}});
  cfg.segment_ms = INT64_MAX / 2;
  log->update_config(cfg);
  // The tombstone's segment nearly full, so the cleaner puts the two small
  // segments in one group and the tombstone's segment in another.
  size_t segs = log->segment_count();
  for (int i = 0; log->segment_count() == segs; ++i)
    append_keyed(*log, {{"filler-" + std::to_string(i), std::string(1000, 'f'), kTs}});
  auto bases = log->segment_base_offsets();
  ASSERT_GE(bases.size(), 4u);
  int64_t start_before = log->first_dirty_offset();

  // DeleteRecords up to y's segment while the first group is being cleaned:
  // "a" goes legitimately, and the group {a, y} changed under the pass.
  int calls = 0;
  sync_point::Scoped under_the_pass("Cleaner::CleanedCopyWritten", [&] {
    if (calls++ == 0) {
      ASSERT_TRUE(log->advance_log_start_offset(bases[1]).is_ok());
    }
  });
  auto st = log->clean(kTs);
  ASSERT_TRUE(st.is_ok()) << st.status().message();
  EXPECT_EQ(log->first_dirty_offset(), start_before) << "checkpoint moved past a group that was not cleaned";
  EXPECT_TRUE(has_live_value(*log, "y"));  // nothing cleaned yet: the old value is still there

  // Later passes: the tombstone is mapped again, y's old value goes, and
  // after delete.retention.ms the tombstone goes too; y never comes back.
  int64_t now = kTs + 1;
  for (int pass = 0; pass < 4; ++pass, now += kRetention + 1) {
    auto s = log->clean(now);
    ASSERT_TRUE(s.is_ok()) << s.status().message();
    EXPECT_FALSE(has_live_value(*log, "y")) << "pass " << pass << " at " << now;
  }
  for (const auto& r : read_all(*log)) EXPECT_NE(r.key, "y") << "tombstone still there at offset " << r.offset;
}

TEST(CleanerRace, RetentionLeavesSegmentsTheCleanerEmptied) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), config(2048));
  // Every key rewritten: the first segments end up empty after cleaning.
  for (int v = 0; v < 3; ++v)
    for (int k = 0; k < 60; ++k) append_keyed(*log, {{"k" + std::to_string(k), std::string(100, 'a' + v), kTs}});
  size_t segs = log->segment_count();
  for (int i = 0; log->segment_count() == segs; ++i)
    append_keyed(*log, {{"filler-" + std::to_string(i), std::string(100, 'f'), kTs}});
  ASSERT_TRUE(log->clean(kTs).is_ok());
  auto records = read_all(*log);
  // Kafka's rule: compaction alone never moves the log start offset.
  auto n = log->apply_retention(kTs + 10 * kRetention);
  ASSERT_TRUE(n.is_ok());
  EXPECT_EQ(*n, 0);
  EXPECT_EQ(log->log_start_offset(), 0);
  auto after = read_all(*log);
  ASSERT_EQ(after.size(), records.size());
}

}  // namespace
}  // namespace spool::storage
