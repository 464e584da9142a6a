// Producer state: Kafka's sequence/epoch rules, the five-batch duplicate
// cache, snapshots, and recovery (snapshot + replay == full replay).
#include <gtest/gtest.h>

#include <filesystem>

#include "protocol/error_code.h"
#include "storage/producer_snapshot.h"
#include "storage/producer_state.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using protocol::ErrorCode;
using testing::TempDir;

constexpr int16_t kOutOfOrder = static_cast<int16_t>(ErrorCode::kOutOfOrderSequenceNumber);
constexpr int16_t kBadEpoch = static_cast<int16_t>(ErrorCode::kInvalidProducerEpoch);

ProducerBatch pbatch(int64_t pid, int16_t epoch, int32_t seq, int32_t count, int64_t offset, int64_t ts = 100) {
  ProducerBatch b;
  b.producer_id = pid;
  b.epoch = epoch;
  b.base_sequence = seq;
  b.last_sequence = last_sequence_of(seq, count - 1);
  b.first_offset = offset;
  b.last_offset = offset + count - 1;
  b.max_timestamp = ts;
  return b;
}

// Validates and commits one batch; returns the status.
Status append(ProducerStateManager& m, const ProducerBatch& b) {
  ProducerStateManager::Staged st;
  Status s = m.validate_and_stage(b, st);
  if (s) m.commit(std::move(st), b.last_offset + 1);
  return s;
}

TEST(SequenceTest, LastSequenceWraps) {
  EXPECT_EQ(last_sequence_of(0, 4), 4);
  EXPECT_EQ(last_sequence_of(INT32_MAX, 0), INT32_MAX);
  EXPECT_EQ(last_sequence_of(INT32_MAX, 1), 0);
  EXPECT_EQ(last_sequence_of(INT32_MAX - 1, 3), 1);
  EXPECT_TRUE(in_sequence(4, 5));
  EXPECT_TRUE(in_sequence(INT32_MAX, 0));
  EXPECT_FALSE(in_sequence(4, 6));
  EXPECT_FALSE(in_sequence(4, 4));
  EXPECT_FALSE(in_sequence(INT32_MAX, 1));
}

TEST(ProducerStateTest, InOrderBatchesAreAccepted) {
  ProducerStateManager m;
  EXPECT_TRUE(append(m, pbatch(7, 0, 0, 3, 0)));
  EXPECT_TRUE(append(m, pbatch(7, 0, 3, 2, 3)));
  EXPECT_TRUE(append(m, pbatch(7, 0, 5, 1, 5)));
  const ProducerEntry* e = m.entry(7);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->epoch, 0);
  EXPECT_EQ(e->last_seq(), 5);
  EXPECT_EQ(e->last_data_offset(), 5);
  EXPECT_EQ(e->batches.size(), 3u);
  EXPECT_EQ(m.map_end_offset(), 6);
}

TEST(ProducerStateTest, UnknownProducerMayStartAtAnySequence) {
  // Kafka 3.x: no state (new, expired, or data deleted) accepts any sequence.
  ProducerStateManager m;
  EXPECT_TRUE(append(m, pbatch(7, 3, 42, 1, 0)));
  EXPECT_EQ(m.entry(7)->last_seq(), 42);
}

TEST(ProducerStateTest, EachOfTheLastFiveIsADuplicate) {
  ProducerStateManager m;
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(append(m, pbatch(7, 0, i * 2, 2, 10 + i * 2)));
  // Batches 2..6 are cached (sequences 4..13).
  for (int i = 2; i < 7; ++i) {
    auto dup = m.find_duplicate(pbatch(7, 0, i * 2, 2, 999));
    ASSERT_TRUE(dup.has_value()) << "batch " << i;
    EXPECT_EQ(dup->first_offset, 10 + i * 2);
    EXPECT_EQ(dup->last_offset, 11 + i * 2);
  }
  // Older than five batches: not a duplicate but out of order, as in Kafka.
  for (int i = 0; i < 2; ++i) {
    auto b = pbatch(7, 0, i * 2, 2, 999);
    EXPECT_FALSE(m.find_duplicate(b).has_value());
    ProducerStateManager::Staged st;
    EXPECT_EQ(m.validate_and_stage(b, st).kafka_code(), kOutOfOrder);
  }
  // Same first sequence, other last sequence: not a duplicate.
  EXPECT_FALSE(m.find_duplicate(pbatch(7, 0, 4, 3, 999)).has_value());
  // Another epoch: not a duplicate.
  EXPECT_FALSE(m.find_duplicate(pbatch(7, 1, 4, 2, 999)).has_value());
  // Another producer: not a duplicate.
  EXPECT_FALSE(m.find_duplicate(pbatch(8, 0, 4, 2, 999)).has_value());
}

TEST(ProducerStateTest, GapIsOutOfOrder) {
  ProducerStateManager m;
  ASSERT_TRUE(append(m, pbatch(7, 0, 0, 2, 0)));
  Status s = append(m, pbatch(7, 0, 3, 1, 2));
  EXPECT_EQ(s.kafka_code(), kOutOfOrder) << s.message();
  EXPECT_EQ(m.entry(7)->last_seq(), 1);  // unchanged
  EXPECT_TRUE(append(m, pbatch(7, 0, 2, 1, 2)));
}

TEST(ProducerStateTest, SequenceWrapsAroundToZero) {
  ProducerStateManager m;
  ASSERT_TRUE(append(m, pbatch(7, 0, INT32_MAX - 1, 2, 0)));  // ends at INT32_MAX
  EXPECT_TRUE(append(m, pbatch(7, 0, 0, 1, 2)));
  ASSERT_TRUE(append(m, pbatch(8, 0, INT32_MAX - 1, 4, 3)));  // wraps inside: ends at 1
  EXPECT_EQ(m.entry(8)->last_seq(), 1);
  EXPECT_EQ(append(m, pbatch(8, 0, 0, 1, 7)).kafka_code(), kOutOfOrder);
  EXPECT_TRUE(append(m, pbatch(8, 0, 2, 1, 7)));
}

TEST(ProducerStateTest, EpochBumpAndFencing) {
  ProducerStateManager m;
  ASSERT_TRUE(append(m, pbatch(7, 0, 0, 5, 0)));
  // A new epoch must restart at 0.
  EXPECT_EQ(append(m, pbatch(7, 1, 5, 1, 5)).kafka_code(), kOutOfOrder);
  ASSERT_TRUE(append(m, pbatch(7, 1, 0, 1, 5)));
  EXPECT_EQ(m.entry(7)->epoch, 1);
  EXPECT_EQ(m.entry(7)->batches.size(), 1u);  // the old epoch's batches are forgotten
  // The old epoch is fenced, even for what used to be a duplicate.
  EXPECT_FALSE(m.find_duplicate(pbatch(7, 0, 0, 5, 0)).has_value());
  EXPECT_EQ(append(m, pbatch(7, 0, 0, 5, 0)).kafka_code(), kBadEpoch);
  EXPECT_EQ(append(m, pbatch(7, 0, 5, 1, 6)).kafka_code(), kBadEpoch);
}

TEST(ProducerStateTest, BatchesOfOneAppendAreCheckedInOrder) {
  ProducerStateManager m;
  ProducerStateManager::Staged st;
  EXPECT_TRUE(m.validate_and_stage(pbatch(7, 0, 0, 2, 0), st));
  EXPECT_TRUE(m.validate_and_stage(pbatch(7, 0, 2, 2, 2), st));
  EXPECT_EQ(m.validate_and_stage(pbatch(7, 0, 2, 2, 4), st).kafka_code(), kOutOfOrder);
  EXPECT_EQ(m.entry(7), nullptr);  // nothing visible before commit
  m.commit(std::move(st), 4);
  EXPECT_EQ(m.entry(7)->last_seq(), 3);
}

TEST(ProducerStateTest, NegativeSequenceIsInvalidRecord) {
  ProducerStateManager m;
  EXPECT_EQ(append(m, pbatch(7, 0, -1, 1, 0)).kafka_code(), static_cast<int16_t>(ErrorCode::kInvalidRecord));
}

TEST(ProducerStateTest, ExpiryAndEviction) {
  ProducerStateManager m;
  ASSERT_TRUE(append(m, pbatch(1, 0, 0, 1, 0, /*ts=*/1000)));
  ASSERT_TRUE(append(m, pbatch(2, 0, 0, 1, 1, /*ts=*/5000)));
  EXPECT_EQ(m.remove_expired(5999, 1000), 1);  // producer 1 idle 4999 ms
  EXPECT_EQ(m.entry(1), nullptr);
  EXPECT_NE(m.entry(2), nullptr);
  EXPECT_EQ(m.evict_unretained(1), 0);
  EXPECT_EQ(m.evict_unretained(2), 1);
  EXPECT_EQ(m.size(), 0u);
}

std::vector<ProducerEntry> sample_entries() {
  ProducerStateManager m;
  for (int i = 0; i < 7; ++i) EXPECT_TRUE(append(m, pbatch(5, 2, i, 1, i, 100 + i)));
  EXPECT_TRUE(append(m, pbatch(9, 0, 10, 3, 7, 300)));
  return m.entries();
}

void expect_same(const std::vector<ProducerEntry>& a, const std::vector<ProducerEntry>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].producer_id, b[i].producer_id);
    EXPECT_EQ(a[i].epoch, b[i].epoch);
    EXPECT_EQ(a[i].last_timestamp, b[i].last_timestamp);
    EXPECT_EQ(a[i].coordinator_epoch, b[i].coordinator_epoch);
    EXPECT_EQ(a[i].current_txn_first_offset, b[i].current_txn_first_offset);
    ASSERT_EQ(a[i].batches.size(), b[i].batches.size()) << "producer " << a[i].producer_id;
    for (size_t k = 0; k < a[i].batches.size(); ++k) {
      EXPECT_EQ(a[i].batches[k].first_seq, b[i].batches[k].first_seq);
      EXPECT_EQ(a[i].batches[k].last_seq, b[i].batches[k].last_seq);
      EXPECT_EQ(a[i].batches[k].first_offset, b[i].batches[k].first_offset);
      EXPECT_EQ(a[i].batches[k].last_offset, b[i].batches[k].last_offset);
      EXPECT_EQ(a[i].batches[k].timestamp, b[i].batches[k].timestamp);
    }
  }
}

TEST(ProducerSnapshotTest, RoundTrip) {
  TempDir dir;
  auto entries = sample_entries();
  ASSERT_EQ(entries.size(), 2u);
  ASSERT_EQ(entries[0].batches.size(), 5u);
  ASSERT_TRUE(write_producer_snapshot(dir.path(), 10, entries));
  EXPECT_EQ(list_producer_snapshots(dir.path()), std::vector<int64_t>{10});
  auto back = read_producer_snapshot(dir.path(), 10);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  expect_same(entries, *back);
}

TEST(ProducerSnapshotTest, CorruptionIsDetected) {
  Bytes good = encode_producer_snapshot(10, sample_entries());
  int64_t off = 0;
  ASSERT_TRUE(decode_producer_snapshot(good, off).is_ok());
  // Every single flipped byte and every truncation is refused.
  for (size_t i = 0; i < good.size(); ++i) {
    Bytes bad = good;
    bad[i] ^= 0x5a;
    EXPECT_FALSE(decode_producer_snapshot(bad, off).is_ok()) << "flipped byte " << i;
  }
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_FALSE(decode_producer_snapshot(ByteSpan(good.data(), n), off).is_ok()) << "truncated to " << n;
  Bytes longer = good;
  longer.push_back(0);
  EXPECT_FALSE(decode_producer_snapshot(longer, off).is_ok());
  // A snapshot whose name does not match its content is refused too.
  TempDir dir;
  ASSERT_TRUE(write_producer_snapshot(dir.path(), 10, sample_entries()));
  std::filesystem::rename(producer_snapshot_path(dir.path(), 10), producer_snapshot_path(dir.path(), 11));
  EXPECT_FALSE(read_producer_snapshot(dir.path(), 11).is_ok());
}

// ---- through the Log ----

Bytes idem_batch(int64_t pid, int16_t epoch, int32_t seq, int n, int64_t ts = 1000) {
  std::vector<record::BuildRecord> recs;
  for (int i = 0; i < n; ++i) {
    record::BuildRecord r;
    r.value = Bytes(20, static_cast<uint8_t>('a' + i));
    r.timestamp = ts + i;
    recs.push_back(std::move(r));
  }
  record::BatchOptions o;
  o.producer_id = pid;
  o.producer_epoch = epoch;
  o.base_sequence = seq;
  auto b = record::build_batch(o, recs);
  EXPECT_TRUE(b.is_ok());
  return b.is_ok() ? *b : Bytes{};
}

Result<AppendResult> log_append(Log& log, Bytes b) { return log.append(std::span<uint8_t>(b), 0, 0); }

TEST(LogProducerTest, DuplicateAnsweredWithOriginalOffsets) {
  TempDir dir;
  auto log = testing::open_log(dir.sub("t-0"), testing::small_config());
  ASSERT_TRUE(log);
  testing::append(*log, 2);  // a plain batch first: offsets 0-1
  auto a = log_append(*log, idem_batch(42, 0, 0, 3));
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  EXPECT_EQ(a->first_offset, 2);
  auto b = log_append(*log, idem_batch(42, 0, 3, 2));
  ASSERT_TRUE(b.is_ok());
  auto again = log_append(*log, idem_batch(42, 0, 0, 3));
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  EXPECT_EQ(again->first_offset, 2);
  EXPECT_EQ(again->last_offset, 4);
  EXPECT_EQ(log->log_end_offset(), 7);  // nothing appended
  auto gap = log_append(*log, idem_batch(42, 0, 9, 1));
  EXPECT_EQ(gap.status().kafka_code(), kOutOfOrder);
  auto stale = log_append(*log, idem_batch(42, -1 + 0, 5, 1));  // epoch -1 < 0
  EXPECT_EQ(stale.status().kafka_code(), kBadEpoch);
  EXPECT_EQ(log->log_end_offset(), 7);
  // Two batches in one append: the second one's gap fails the whole append.
  Bytes two = idem_batch(42, 0, 5, 1);
  Bytes second = idem_batch(42, 0, 7, 1);
  two.insert(two.end(), second.begin(), second.end());
  EXPECT_EQ(log_append(*log, two).status().kafka_code(), kOutOfOrder);
  EXPECT_EQ(log->log_end_offset(), 7);
  EXPECT_EQ(log->producer_entry(42)->last_seq(), 4);
}

// State from snapshot + replay must equal a full replay and the live state.
TEST(LogProducerTest, RecoveryFromSnapshotEqualsFullReplay) {
  TempDir dir;
  std::string d = dir.sub("t-0");
  std::vector<ProducerEntry> live;
  {
    auto log = testing::open_log(d, testing::small_config());  // 2 KiB segments: several rolls
    ASSERT_TRUE(log);
    int32_t seq[3] = {0, 0, 0};
    for (int i = 0; i < 60; ++i) {
      int64_t pid = 100 + i % 3;
      ASSERT_TRUE(log_append(*log, idem_batch(pid, 0, seq[i % 3], 2, 1000 + i)).is_ok());
      seq[i % 3] += 2;
    }
    ASSERT_GT(log->segment_count(), 3u);
    ASSERT_TRUE(log->flush());
    live = [&] {
      std::vector<ProducerEntry> v;
      for (int64_t pid = 100; pid < 103; ++pid) v.push_back(*log->producer_entry(pid));
      return v;
    }();
    // No close(): as after kill -9 (no shutdown snapshot).
  }
  auto snaps = list_producer_snapshots(d);
  ASSERT_GE(snaps.size(), 3u);  // one per roll
  auto state_of = [](Log& log) {
    std::vector<ProducerEntry> v;
    for (int64_t pid = 100; pid < 103; ++pid) {
      auto e = log.producer_entry(pid);
      EXPECT_TRUE(e.has_value());
      if (e) v.push_back(*e);
    }
    return v;
  };
  {
    auto log = testing::open_log(d, testing::small_config(), false);
    ASSERT_TRUE(log);
    expect_same(live, state_of(*log));
    // The reopened log keeps deduplicating.
    auto dup = log_append(*log, idem_batch(101, 0, live[1].batches.back().first_seq, 2));
    ASSERT_TRUE(dup.is_ok());
    EXPECT_EQ(dup->first_offset, live[1].batches.back().first_offset);
  }
  // A corrupt newest snapshot is ignored: the one before it + replay.
  {
    auto log = testing::open_log(d, testing::small_config(), false);
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->take_producer_snapshot());
    ASSERT_TRUE(log->flush());
    ASSERT_TRUE(log->close());
  }
  snaps = list_producer_snapshots(d);
  ASSERT_GE(snaps.size(), 2u);
  {
    std::ofstream f(producer_snapshot_path(d, snaps.back()), std::ios::binary | std::ios::trunc);
    f << "garbage";
  }
  {
    auto log = testing::open_log(d, testing::small_config(), true);
    ASSERT_TRUE(log);
    expect_same(live, state_of(*log));
    // The garbage is gone; the load wrote a good snapshot at the end instead.
    EXPECT_TRUE(read_producer_snapshot(d, snaps.back()).is_ok());
    ASSERT_TRUE(log->close());
  }
  // Without any snapshot: full replay gives the same state, and pins it in
  // a snapshot at the end so the next start replays nothing.
  for (int64_t o : list_producer_snapshots(d)) delete_producer_snapshot(d, o);
  int64_t end = 0;
  {
    auto log = testing::open_log(d, testing::small_config(), false);
    ASSERT_TRUE(log);
    expect_same(live, state_of(*log));
    end = log->log_end_offset();
  }
  EXPECT_EQ(list_producer_snapshots(d), std::vector<int64_t>{end});
  {
    auto log = testing::open_log(d, testing::small_config(), false);
    ASSERT_TRUE(log);
    expect_same(live, state_of(*log));
  }
}

TEST(LogProducerTest, CleanShutdownSnapshotAndRetentionDeletesOldSnapshots) {
  TempDir dir;
  std::string d = dir.sub("t-0");
  auto cfg = testing::small_config();
  int64_t end = 0;
  {
    auto log = testing::open_log(d, cfg);
    ASSERT_TRUE(log);
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(log_append(*log, idem_batch(7, 0, i, 1)).is_ok());
    end = log->log_end_offset();
    ASSERT_TRUE(log->flush());
    ASSERT_TRUE(log->close());
  }
  auto snaps = list_producer_snapshots(d);
  ASSERT_FALSE(snaps.empty());
  EXPECT_EQ(snaps.back(), end);
  auto log = testing::open_log(d, cfg, true, end);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->producer_entry(7)->last_seq(), 99);
  // DeleteRecords past several segments: their snapshots go with them.
  auto bases = log->segment_base_offsets();
  ASSERT_GE(bases.size(), 3u);
  ASSERT_TRUE(log->advance_log_start_offset(bases[2]));
  for (int64_t o : list_producer_snapshots(d)) EXPECT_GE(o, bases[2]);
  EXPECT_TRUE(log->producer_entry(7).has_value());  // its last batch is still there
  // Everything deleted: the producer's state goes, and it may start anew.
  ASSERT_TRUE(log->advance_log_start_offset(log->log_end_offset()));
  EXPECT_FALSE(log->producer_entry(7).has_value());
  EXPECT_TRUE(log_append(*log, idem_batch(7, 0, 1000, 1)).is_ok());
}

TEST(LogProducerTest, ExpiryInRetentionPass) {
  TempDir dir;
  auto log = testing::open_log(dir.sub("t-0"), testing::small_config());
  ASSERT_TRUE(log);
  log->set_producer_expiration_ms(1000);
  ASSERT_TRUE(log_append(*log, idem_batch(7, 0, 0, 1, /*ts=*/5000)).is_ok());
  ASSERT_TRUE(log->apply_retention(5500).is_ok());
  EXPECT_TRUE(log->producer_entry(7).has_value());
  ASSERT_TRUE(log->apply_retention(6001).is_ok());
  EXPECT_FALSE(log->producer_entry(7).has_value());
}

TEST(LogProducerTest, DuplicateUnderLogAppendTimeAnswersTheOriginalTime) {
  TempDir dir;
  auto cfg = testing::small_config();
  cfg.timestamp_log_append_time = true;
  auto log = testing::open_log(dir.sub("t-0"), cfg);
  ASSERT_TRUE(log);
  int64_t clock = 50'000;
  log->set_clock([&clock] { return clock; });
  auto a = log_append(*log, idem_batch(7, 0, 0, 2));
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->log_append_time_ms, 50'000);
  clock = 60'000;
  auto again = log_append(*log, idem_batch(7, 0, 0, 2));
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again->first_offset, a->first_offset);
  EXPECT_EQ(again->log_append_time_ms, 50'000);
  EXPECT_EQ(log->log_end_offset(), 2);
}

TEST(LogProducerTest, TruncationRebuildsState) {
  TempDir dir;
  auto log = testing::open_log(dir.sub("t-0"), testing::small_config());
  ASSERT_TRUE(log);
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(log_append(*log, idem_batch(7, 0, i, 1)).is_ok());
  ASSERT_TRUE(log->truncate_to(20));
  EXPECT_EQ(log->producer_entry(7)->last_seq(), 19);
  EXPECT_TRUE(log_append(*log, idem_batch(7, 0, 20, 1)).is_ok());
}

}  // namespace
}  // namespace spool::storage
