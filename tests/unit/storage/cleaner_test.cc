#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <set>
#include <thread>

#include "storage/checkpoint.h"
#include "storage/file_util.h"
#include "storage/log_manager.h"
#include "storage/offset_map.h"
#include "compaction_util.h"
#include "fault_fs_support.h"
#include "test_util.h"
#include "util/sync_point.h"

namespace spool::storage {
namespace {

using namespace testing;

constexpr int64_t kTs = 1'000'000;
constexpr int64_t kDay = 86400000;

LogConfig compact_config() {
  LogConfig c;
  c.segment_bytes = 32 * 1024;
  c.index_interval_bytes = 1024;
  c.segment_index_bytes = 64 * 1024;
  c.cleanup_policy_compact = true;
  c.cleanup_policy_delete = false;
  return c;
}

// Appends uniquely keyed filler until a new segment starts, so everything
// written before is in inactive (cleanable) segments.
void roll(Log& log, std::map<std::string, Latest>& latest, int64_t ts = kTs) {
  size_t segs = log.segment_count();
  for (int i = 0; log.segment_count() == segs; ++i) {
    std::string key = "filler-" + std::to_string(log.log_end_offset());
    auto a = append_keyed(log, {{key, std::string(100, 'f'), ts}});
    latest[key] = Latest{a.first_offset, std::string(100, 'f')};
  }
}

int64_t active_base(const Log& log) { return log.segment_base_offsets().back(); }

// Below `clean_end` exactly the latest record of each key is left (tombstones
// only when `tombstones`); offsets increase; nothing latest is missing.
void check_compacted(const Log& log, const std::map<std::string, Latest>& latest, int64_t clean_end,
                     bool tombstones) {
  auto recs = read_all(log);
  int64_t prev = -1;
  std::set<std::string> seen;
  for (const auto& r : recs) {
    ASSERT_GT(r.offset, prev);
    prev = r.offset;
    auto it = latest.find(r.key);
    ASSERT_NE(it, latest.end()) << r.key;
    if (r.offset >= clean_end) continue;
    ASSERT_EQ(r.offset, it->second.offset) << "stale version of " << r.key << " kept";
    ASSERT_EQ(r.value, it->second.value) << r.key;
    if (!r.value) {
      ASSERT_TRUE(tombstones) << "tombstone for " << r.key << " past delete.retention.ms";
    }
    seen.insert(r.key);
  }
  for (const auto& [key, l] : latest) {
    if (l.offset >= clean_end) continue;
    bool expected = l.value.has_value() || tombstones;
    EXPECT_EQ(seen.count(key) == 1, expected) << key;
  }
}

TEST(OffsetMap, KeepsLatestOffsetAndRefusesWhenFull) {
  KeyOffsetMap m(24 * 1000);
  m.reset(100);
  EXPECT_EQ(m.get(ByteSpan()), -1);
  std::string a = "a", b = "b";
  EXPECT_TRUE(m.put(ByteSpan(reinterpret_cast<const uint8_t*>(a.data()), 1), 5));
  EXPECT_TRUE(m.put(ByteSpan(reinterpret_cast<const uint8_t*>(a.data()), 1), 9));
  EXPECT_EQ(m.get(ByteSpan(reinterpret_cast<const uint8_t*>(a.data()), 1)), 9);
  EXPECT_EQ(m.get(ByteSpan(reinterpret_cast<const uint8_t*>(b.data()), 1)), -1);
  EXPECT_EQ(m.size(), 1u);
  size_t cap = m.max_entries();
  for (size_t i = 0; m.size() < cap; ++i) {
    std::string k = "k" + std::to_string(i);
    ASSERT_TRUE(m.put(ByteSpan(reinterpret_cast<const uint8_t*>(k.data()), k.size()), 100 + i));
  }
  std::string extra = "no-room";
  EXPECT_FALSE(m.put(ByteSpan(reinterpret_cast<const uint8_t*>(extra.data()), extra.size()), 1));
  EXPECT_TRUE(m.put(ByteSpan(reinterpret_cast<const uint8_t*>(a.data()), 1), 10));  // existing key still updates
  // Distinct keys get distinct digests (no collisions among many similar keys).
  std::set<std::pair<uint64_t, uint64_t>> digests;
  for (int i = 0; i < 200000; ++i) {
    std::string k = "key-" + std::to_string(i);
    auto d = digest_key(ByteSpan(reinterpret_cast<const uint8_t*>(k.data()), k.size()));
    digests.insert({d.a, d.b});
  }
  EXPECT_EQ(digests.size(), 200000u);
}

TEST(LogConfig, ParsesCleanupPolicy) {
  LogConfig c;
  EXPECT_TRUE(parse_cleanup_policy("compact", c));
  EXPECT_TRUE(c.cleanup_policy_compact);
  EXPECT_FALSE(c.cleanup_policy_delete);
  EXPECT_TRUE(parse_cleanup_policy("compact, delete", c));
  EXPECT_TRUE(c.cleanup_policy_compact && c.cleanup_policy_delete);
  EXPECT_TRUE(parse_cleanup_policy("delete", c));
  EXPECT_FALSE(c.cleanup_policy_compact);
  EXPECT_FALSE(parse_cleanup_policy("", c));
  EXPECT_FALSE(parse_cleanup_policy("compact,", c));
  EXPECT_FALSE(parse_cleanup_policy("shred", c));
  EXPECT_TRUE(c.cleanup_policy_delete);  // unchanged by refusals
}

TEST(Cleaner, KeepsExactlyTheLatestValuePerKeyAndDropsTombstonesAfterRetention) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), compact_config());
  auto latest = write_versions(*log, 3000, 5, 50, 10, kTs);
  roll(*log, latest);
  int64_t end = log->log_end_offset();
  int64_t active = active_base(*log);
  auto active_bytes = log->read(active, 1 << 20, INT64_MAX, true);
  ASSERT_TRUE(active_bytes.is_ok());
  size_t segs_before = log->segment_count();
  int64_t size_before = log->size_bytes();

  auto info = log->cleanable_info(kTs);
  EXPECT_TRUE(info.due);
  EXPECT_EQ(info.first_dirty, 0);
  EXPECT_EQ(info.first_uncleanable, active);
  EXPECT_DOUBLE_EQ(info.dirty_ratio, 1.0);

  int64_t now = kTs + 1000;
  auto st = log->clean(now);
  ASSERT_TRUE(st.is_ok()) << st.status().message();
  EXPECT_TRUE(st->cleaned);
  EXPECT_EQ(st->end_offset, active);
  EXPECT_EQ(log->first_dirty_offset(), active);
  EXPECT_LT(log->size_bytes(), size_before / 3);
  EXPECT_EQ(log->log_end_offset(), end);
  EXPECT_EQ(log->log_start_offset(), 0);
  check_compacted(*log, latest, active, /*tombstones=*/true);
  // The active segment is untouched.
  auto active_after = log->read(active, 1 << 20, INT64_MAX, true);
  ASSERT_TRUE(active_after.is_ok());
  EXPECT_EQ(active_after->records, active_bytes->records);
  EXPECT_FALSE(log->cleanable_info(now).due);

  // Before the delete horizon a new pass keeps the tombstones...
  auto st2 = log->clean(now + kDay - 1);
  ASSERT_TRUE(st2.is_ok());
  check_compacted(*log, latest, active, true);
  EXPECT_FALSE(log->cleanable_info(now + kDay - 1).due);
  // ...after it they go.
  EXPECT_TRUE(log->cleanable_info(now + kDay).due);
  auto st3 = log->clean(now + kDay);
  ASSERT_TRUE(st3.is_ok());
  EXPECT_EQ(st3->tombstones_removed, 300);
  // Shrunken segments were merged by that pass.
  EXPECT_LT(log->segment_count(), segs_before / 2);
  check_compacted(*log, latest, active, false);
  EXPECT_EQ(log->log_end_offset(), end);

  // Reopening (full recovery scan) gives the same log.
  auto before = read_all(*log);
  ASSERT_TRUE(log->close().is_ok());
  log.reset();
  log = open_log(d.sub("t-0"), compact_config());
  auto after = read_all(*log);
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i].offset, after[i].offset);
    EXPECT_EQ(before[i].value, after[i].value);
  }
  EXPECT_EQ(log->log_end_offset(), end);
}

TEST(Cleaner, IncrementalPassesUseTheCheckpoint) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), compact_config());
  auto latest = write_versions(*log, 2000, 2, 40, 0, kTs);
  roll(*log, latest);
  ASSERT_TRUE(log->clean(kTs).is_ok());
  int64_t first_checkpoint = log->first_dirty_offset();
  // A small amount of new data: ratio below 0.5, not due.
  auto more = write_versions(*log, 200, 1, 40, 0, kTs);
  for (auto& [k, v] : more) latest[k] = v;
  roll(*log, latest);
  auto info = log->cleanable_info(kTs);
  EXPECT_EQ(info.first_dirty, first_checkpoint);
  EXPECT_GT(info.dirty_bytes, 0);
  EXPECT_LT(info.dirty_ratio, 0.5);
  EXPECT_FALSE(info.due);
  // max.compaction.lag.ms makes it due anyway.
  auto cfg = compact_config();
  cfg.max_compaction_lag_ms = 1000;
  log->update_config(cfg);
  EXPECT_TRUE(log->cleanable_info(kTs + 5000).max_lag_exceeded);
  EXPECT_TRUE(log->cleanable_info(kTs + 5000).due);
  ASSERT_TRUE(log->clean(kTs + 5000).is_ok());
  EXPECT_GT(log->first_dirty_offset(), first_checkpoint);
  check_compacted(*log, latest, active_base(*log), true);
}

TEST(Cleaner, RespectsMinCompactionLag) {
  TempDir d;
  auto cfg = compact_config();
  cfg.min_compaction_lag_ms = 10000;
  auto log = open_log(d.sub("t-0"), cfg);
  auto latest = write_versions(*log, 1000, 3, 50, 0, 1000);  // old
  std::map<std::string, Latest> ignore;
  roll(*log, ignore, 1000);
  int64_t young_start = log->log_end_offset();
  auto young = write_versions(*log, 1000, 2, 50, 0, 50000);  // within the lag at now = 55000
  roll(*log, ignore, 50000);
  auto young_before = log->read(young_start, 1 << 24, INT64_MAX, true);
  ASSERT_TRUE(young_before.is_ok());

  auto info = log->cleanable_info(55000);
  EXPECT_LE(info.first_uncleanable, young_start);
  auto st = log->clean(55000);
  ASSERT_TRUE(st.is_ok()) << st.status().message();
  EXPECT_TRUE(st->cleaned);
  EXPECT_LE(log->first_dirty_offset(), young_start);
  // Young data: byte for byte as written.
  auto young_after = log->read(young_start, 1 << 24, INT64_MAX, true);
  ASSERT_TRUE(young_after.is_ok());
  EXPECT_EQ(young_after->records, young_before->records);
  // Old data: one record per key (the young versions were not in the map).
  std::map<std::string, int> count;
  for (const auto& r : read_all(*log)) {
    if (r.offset < young_start && r.key.rfind("key-", 0) == 0) count[r.key]++;
  }
  EXPECT_EQ(count.size(), 1000u);
  for (const auto& [k, n] : count) EXPECT_EQ(n, 1) << k;
  // Once the lag has passed, everything is cleaned.
  for (auto& [k, v] : young) latest[k] = v;
  ASSERT_TRUE(log->clean(50000 + 10000 + 5000).is_ok());
  auto recs = read_all(*log);
  std::set<std::string> keys;
  for (const auto& r : recs)
    if (r.key.rfind("key-", 0) == 0) {
      EXPECT_TRUE(keys.insert(r.key).second) << r.key;
      EXPECT_EQ(r.offset, latest[r.key].offset);
    }
  EXPECT_EQ(keys.size(), 1000u);
}

TEST(Cleaner, PreservesCodecAndKeepsTransactionalBatches) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), compact_config());
  auto txn = append_keyed(*log, {{"key-1", std::string("in-txn"), kTs}, {"key-2", std::string("in-txn"), kTs}},
                          record::Compression::kNone, /*transactional=*/true);
  auto latest = write_versions(*log, 500, 3, 25, 5, kTs, 20, record::Compression::kLz4);
  roll(*log, latest);
  auto st = log->clean(kTs);
  ASSERT_TRUE(st.is_ok()) << st.status().message();
  auto recs = read_all(*log);
  int txn_kept = 0;
  for (const auto& r : recs) {
    if (r.offset <= txn.last_offset) {
      ++txn_kept;
      EXPECT_TRUE(r.batch_attributes & record::kTransactionalBit);
      continue;
    }
    if (r.key.rfind("key-", 0) == 0) {
      EXPECT_EQ(r.batch_attributes & record::kCompressionMask, static_cast<int>(record::Compression::kLz4));
    }
  }
  EXPECT_EQ(txn_kept, 2);
  int64_t prev = -1;
  for (const auto& r : recs) {
    EXPECT_GT(r.offset, prev);
    prev = r.offset;
    if (r.offset > txn.last_offset && r.offset < active_base(*log)) {
      EXPECT_EQ(r.offset, latest[r.key].offset);
    }
  }
  // Tombstone batches carry a delete horizon (KIP-534).
  bool horizon_seen = false;
  for (const auto& r : recs)
    if (!r.value) {
      horizon_seen = true;
      EXPECT_TRUE(r.batch_attributes & record::kDeleteHorizonBit);
      EXPECT_EQ(r.ts, kTs);  // record timestamps survive the new base timestamp
    }
  EXPECT_TRUE(horizon_seen);
}

TEST(Cleaner, NoOpWithoutCompactPolicyAndSmallMapStillProgresses) {
  TempDir d;
  auto cfg = compact_config();
  cfg.cleanup_policy_compact = false;
  cfg.cleanup_policy_delete = true;
  auto log = open_log(d.sub("t-0"), cfg);
  auto latest = write_versions(*log, 500, 2, 50, 0, kTs);
  roll(*log, latest);
  auto st = log->clean(kTs);
  ASSERT_TRUE(st.is_ok());
  EXPECT_FALSE(st->cleaned);
  EXPECT_FALSE(log->cleanable_info(kTs).due);

  cfg = compact_config();
  log->update_config(cfg);
  // A map for ~300 keys: each pass covers part of the dirty section.
  KeyOffsetMap small(24 * 340);
  CleanOptions o;
  o.map = &small;
  int passes = 0;
  while (log->cleanable_info(kTs).dirty_bytes > 0 && passes < 50) {
    auto r = log->clean(kTs, o);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    ASSERT_TRUE(r->cleaned);
    ++passes;
  }
  EXPECT_GT(passes, 2);
  check_compacted(*log, latest, active_base(*log), true);
}

TEST(Cleaner, TruncationAndLogStartMovesKeepTheCheckpointSane) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), compact_config());
  auto latest = write_versions(*log, 1000, 3, 50, 0, kTs);
  roll(*log, latest);
  ASSERT_TRUE(log->clean(kTs).is_ok());
  int64_t checkpoint = log->first_dirty_offset();
  ASSERT_GT(checkpoint, 100);
  ASSERT_TRUE(log->truncate_to(100).is_ok());
  EXPECT_EQ(log->first_dirty_offset(), 100);
  latest = write_versions(*log, 1000, 2, 50, 0, kTs);
  roll(*log, latest);
  // Log start inside the active segment: nothing cleanable, no error.
  ASSERT_TRUE(log->advance_log_start_offset(log->log_end_offset() - 1).is_ok());
  auto info = log->cleanable_info(kTs);
  EXPECT_FALSE(info.due);
  auto st = log->clean(kTs);
  ASSERT_TRUE(st.is_ok()) << st.status().message();
  EXPECT_EQ(read_all(*log).size(), 1u);
}

TEST(Cleaner, TimeAndSizeRetentionOnlyWithDeletePolicy) {
  TempDir d;
  auto cfg = compact_config();
  cfg.retention_ms = 1;
  cfg.retention_bytes = 1;
  auto log = open_log(d.sub("t-0"), cfg);
  auto latest = write_versions(*log, 1000, 3, 50, 0, kTs);
  roll(*log, latest);
  size_t segs = log->segment_count();
  auto n = log->apply_retention(kTs + 1000000);
  ASSERT_TRUE(n.is_ok());
  EXPECT_EQ(*n, 0);  // compact only: nothing expires
  cfg.cleanup_policy_delete = true;  // compact,delete
  log->update_config(cfg);
  n = log->apply_retention(kTs + 1000000);
  ASSERT_TRUE(n.is_ok());
  EXPECT_EQ(static_cast<size_t>(*n), segs - 1);
}

// A crash at each of the cleaner's sync points: the process dies there (the
// FaultFs freezes: every later change fails), and its files stay as they are
// (a process crash keeps the page cache) or lose what was not synced (a
// power cut, seeded). The next open must finish or undo the pass.
class CleanerCrash : public ::testing::TestWithParam<std::tuple<const char*, bool>> {};

TEST_P(CleanerCrash, LeavesAValidCompleteLog) {
  FaultFsRoot disk("t-0");
  FaultFs& ffs = *disk.ffs;
  auto cfg = compact_config();
  auto log = open_log(disk.root, cfg);
  auto latest = write_versions(*log, 2000, 4, 50, 10, kTs);
  roll(*log, latest);
  int64_t end = log->log_end_offset();
  int64_t active = active_base(*log);
  auto original = read_all(*log);
  ASSERT_TRUE(log->flush());
  const auto [point, power_cut] = GetParam();
  {
    sync_point::Scoped crash(point, [&ffs] { ffs.freeze(); });
    auto st = log->clean(kTs);
    ASSERT_FALSE(st.is_ok()) << "the pass went on after the crash";
    EXPECT_EQ(st.status().kafka_code(), kStorageError) << st.status().message();
    EXPECT_EQ(sync_point::hits(point), 1);
  }
  log.reset();
  if (power_cut) {
    const uint64_t seed = static_cast<uint64_t>(::testing::UnitTest::GetInstance()->random_seed()) * 7919 + 1;
    std::cout << "power cut seed " << seed << ": " << ffs.power_cut(seed).to_string() << "\n";
  } else {
    ffs.thaw();
  }
  bool has_leftover = false;
  for (const auto& e : std::filesystem::directory_iterator(disk.root)) {
    std::string n = e.path().filename().string();
    if (n.find(".cleaned") != std::string::npos || n.find(".swap") != std::string::npos) has_leftover = true;
  }
  if (!power_cut) {
    EXPECT_TRUE(has_leftover);  // a power cut may undo the unsynced ones
  }

  log = open_log(disk.root, cfg, /*clean=*/false, /*recovery_point=*/0);
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->log_end_offset(), end);
  for (const auto& e : std::filesystem::directory_iterator(disk.root)) {
    std::string n = e.path().filename().string();
    EXPECT_EQ(n.find(".cleaned"), std::string::npos) << n;
    EXPECT_EQ(n.find(".swap"), std::string::npos) << n;
  }
  // Valid and complete: increasing offsets, every key's latest record there,
  // only versions that existed before.
  auto recs = read_all(*log);
  std::map<int64_t, const ReadRecord*> orig;
  for (const auto& r : original) orig[r.offset] = &r;
  int64_t prev = -1;
  std::map<std::string, int64_t> last_seen;
  for (const auto& r : recs) {
    ASSERT_GT(r.offset, prev);
    prev = r.offset;
    auto it = orig.find(r.offset);
    ASSERT_NE(it, orig.end());
    EXPECT_EQ(it->second->key, r.key);
    EXPECT_EQ(it->second->value, r.value);
    last_seen[r.key] = r.offset;
  }
  for (const auto& [k, l] : latest) EXPECT_EQ(last_seen[k], l.offset) << k;
  if (std::string(point) == "Cleaner::CleanedCopyWritten") EXPECT_EQ(recs.size(), original.size());
  else EXPECT_LT(recs.size(), original.size());
  // The next pass finishes the job.
  ASSERT_TRUE(log->clean(kTs).is_ok());
  check_compacted(*log, latest, active, true);
}

INSTANTIATE_TEST_SUITE_P(Points, CleanerCrash,
                         ::testing::Combine(::testing::Values("Cleaner::CleanedCopyWritten",
                                                              "Cleaner::AfterSwapRename",
                                                              "Cleaner::AfterOldDeleted"),
                                            ::testing::Bool()));

TEST(Cleaner, AppendsAndReadsContinueDuringCleaning) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), compact_config());
  auto latest = write_versions(*log, 3000, 3, 50, 0, kTs);
  roll(*log, latest);
  std::atomic<bool> stop{false};
  std::atomic<int> errors{0};
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) {
      Bytes b = keyed_batch({{"w-" + std::to_string(i % 100), std::string("x"), kTs}});
      if (!log->append(std::span<uint8_t>(b), 1, 0).is_ok()) ++errors;
    }
  });
  std::thread reader([&] {
    while (!stop) {
      auto r = log->read(log->log_start_offset(), 1 << 16, INT64_MAX, true);
      if (!r.is_ok()) ++errors;
    }
  });
  for (int i = 0; i < 3; ++i) {
    auto st = log->clean(kTs);
    ASSERT_TRUE(st.is_ok()) << st.status().message();
  }
  stop = true;
  writer.join();
  reader.join();
  EXPECT_EQ(errors.load(), 0);
  auto recs = read_all(*log);
  int64_t prev = -1;
  for (const auto& r : recs) {
    ASSERT_GT(r.offset, prev);
    prev = r.offset;
    if (r.key.rfind("key-", 0) == 0) {
      EXPECT_EQ(r.offset, latest[r.key].offset);
    }
  }
}

TEST(CleanerManager, CheckpointAndBackgroundThread) {
  TempDir d;
  LogManager::Options o;
  o.log_dirs = {d.sub("data")};
  o.cleaner_enable = false;
  o.cleaner_dedupe_buffer_bytes = 4 << 20;
  int64_t cleaned_to = 0;
  {
    auto m = LogManager::open(o);
    ASSERT_TRUE(m.is_ok()) << m.status().message();
    auto log = (*m)->create("compacted", 0, compact_config());
    ASSERT_TRUE(log.is_ok());
    auto plain = (*m)->create("plain", 0, LogConfig{});
    ASSERT_TRUE(plain.is_ok());
    auto latest = write_versions(**log, 1000, 3, 50, 0, now_ms());
    roll(**log, latest, now_ms());
    auto n = (*m)->run_cleaner_once();
    ASSERT_TRUE(n.is_ok()) << n.status().message();
    EXPECT_EQ(*n, 1);
    cleaned_to = (*log)->first_dirty_offset();
    EXPECT_GT(cleaned_to, 0);
    auto again = (*m)->run_cleaner_once();
    ASSERT_TRUE(again.is_ok());
    EXPECT_EQ(*again, 0);
    auto cp = read_offset_checkpoint(d.sub("data") + "/" + kCleanerOffsetCheckpoint);
    ASSERT_TRUE(cp.is_ok());
    EXPECT_EQ(cp->size(), 1u);
    TopicPartition tp{"compacted", 0};
    EXPECT_EQ((*cp)[tp], cleaned_to);
    (*m)->shutdown();
  }
  o.cleaner_enable = true;
  o.cleaner_backoff_ms = 20;
  o.config_for = [](const std::string& t) { return t == "compacted" ? compact_config() : LogConfig{}; };
  auto m = LogManager::open(o);
  ASSERT_TRUE(m.is_ok());
  auto log = (*m)->get("compacted", 0);
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->first_dirty_offset(), cleaned_to);
  auto more = write_versions(*log, 1500, 2, 50, 0, now_ms());
  roll(*log, more, now_ms());
  for (int i = 0; i < 500 && log->first_dirty_offset() == cleaned_to; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_GT(log->first_dirty_offset(), cleaned_to);
  (*m)->shutdown();
}

}  // namespace
}  // namespace spool::storage
