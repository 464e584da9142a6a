// Transactions in storage: the .txnindex file (Kafka's 34-byte entries),
// producer-state transaction rules, markers, the last stable offset, the
// aborted-transaction collection for read_committed fetches, and recovery of
// all of it (snapshots carry open transactions; replay re-adds aborts).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "protocol/error_code.h"
#include "record/batch_builder.h"
#include "storage/producer_state.h"
#include "storage/txn_index.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using protocol::ErrorCode;
using testing::TempDir;

constexpr int16_t code(ErrorCode c) { return static_cast<int16_t>(c); }

Bytes read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// A batch of `n` records of producer `pid`, transactional unless told otherwise.
Bytes producer_batch(int64_t pid, int16_t epoch, int32_t seq, int n, bool transactional = true) {
  std::vector<record::BuildRecord> recs;
  for (int i = 0; i < n; ++i) {
    record::BuildRecord r;
    r.key = Bytes{'k'};
    r.value = Bytes{'v', static_cast<uint8_t>('0' + i % 10)};
    r.timestamp = 1000 + i;
    recs.push_back(std::move(r));
  }
  record::BatchOptions o;
  o.producer_id = pid;
  o.producer_epoch = epoch;
  o.base_sequence = seq;
  o.transactional = transactional;
  auto b = record::build_batch(o, recs);
  EXPECT_TRUE(b.is_ok());
  return b.is_ok() ? *b : Bytes{};
}

Result<AppendResult> append_batch(Log& log, Bytes b) {
  return log.append(std::span<uint8_t>(b), 0, 0);
}

// ---- TxnIndex ----

TEST(TxnIndexTest, EntriesUseKafkasThirtyFourByteFormat) {
  TempDir dir;
  const std::string path = dir.sub("00000000000000000000.txnindex");
  {
    auto idx = TxnIndex::open(path);
    ASSERT_TRUE(idx.is_ok());
    EXPECT_FALSE(std::filesystem::exists(path)) << "no file until the first entry";
    ASSERT_TRUE((*idx)->append({7, 10, 20, 15}));
    ASSERT_TRUE((*idx)->append({9, 12, 30, 31}));
    ASSERT_TRUE((*idx)->append({7, 10, 20, 15}));  // a replayed duplicate is not written twice
  }
  Bytes raw = read_file(path);
  ASSERT_EQ(raw.size(), 2 * TxnIndex::kEntrySize);
  const Bytes first = {0, 0,                        // version 0
                       0, 0, 0, 0, 0, 0, 0, 7,      // producer id
                       0, 0, 0, 0, 0, 0, 0, 10,     // first offset
                       0, 0, 0, 0, 0, 0, 0, 20,     // last offset
                       0, 0, 0, 0, 0, 0, 0, 15};    // last stable offset
  EXPECT_EQ(Bytes(raw.begin(), raw.begin() + 34), first);
  auto again = TxnIndex::open(path);
  ASSERT_TRUE(again.is_ok());
  ASSERT_EQ((*again)->entries().size(), 2u);
  EXPECT_EQ((*again)->entries()[1], (AbortedTxn{9, 12, 30, 31}));
}

TEST(TxnIndexTest, CollectFollowsKafkasOverlapAndCompletionRules) {
  TempDir dir;
  auto idx = TxnIndex::open(dir.sub("x.txnindex"));
  ASSERT_TRUE(idx.is_ok());
  ASSERT_TRUE((*idx)->append({1, 0, 5, 3}));
  ASSERT_TRUE((*idx)->append({2, 3, 9, 10}));
  ASSERT_TRUE((*idx)->append({3, 20, 25, 26}));
  std::vector<AbortedTxn> out;
  // [6, 10): txn 1 ended before 6; txn 2 overlaps; its LSO 10 >= 10 completes the search.
  EXPECT_TRUE((*idx)->collect(6, 10, out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].producer_id, 2);
  out.clear();
  // [0, 40): all three overlap, and no entry's LSO reaches 40: look further.
  EXPECT_FALSE((*idx)->collect(0, 40, out));
  EXPECT_EQ(out.size(), 3u);
}

// Chaos hour of session 13 (seed 1791361442): after a power cut dropped a
// page from the middle of a .txnindex, recovery re-indexed the lost aborts
// at the end of the file, after a later entry; collect() then stopped at
// that entry's LSO and a read_committed fetch saw 136 aborted records.
TEST(TxnIndexTest, AnAbortReindexedOutOfOrderIsInsertedInMarkerOrder) {
  TempDir dir;
  const std::string path = dir.sub("x.txnindex");
  {
    auto idx = TxnIndex::open(path);
    ASSERT_TRUE(idx.is_ok());
    ASSERT_TRUE((*idx)->append({1000, 100, 110, 111}));
    ASSERT_TRUE((*idx)->append({1000, 300, 310, 311}));  // survived the cut
    ASSERT_TRUE((*idx)->append({1000, 200, 210, 211}));  // re-indexed by recovery
    ASSERT_TRUE((*idx)->append({1000, 200, 210, 211}));  // replayed twice: still once
    std::vector<AbortedTxn> out;
    EXPECT_TRUE((*idx)->collect(150, 250, out));
    ASSERT_EQ(out.size(), 1u) << "the re-indexed abort must be found";
    EXPECT_EQ(out[0].first_offset, 200);
  }
  // The file holds them in order too.
  auto again = TxnIndex::open(path);
  ASSERT_TRUE(again.is_ok());
  auto e = (*again)->entries();
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].last_offset, 110);
  EXPECT_EQ(e[1].last_offset, 210);
  EXPECT_EQ(e[2].last_offset, 310);
}

TEST(TxnIndexTest, TruncateAndTornTail) {
  TempDir dir;
  const std::string path = dir.sub("x.txnindex");
  {
    auto idx = TxnIndex::open(path);
    ASSERT_TRUE((*idx)->append({1, 0, 5, 6}));
    ASSERT_TRUE((*idx)->append({2, 6, 9, 10}));
    ASSERT_TRUE((*idx)->truncate_to(9));  // the second marker (offset 9) is gone
    EXPECT_EQ((*idx)->entries().size(), 1u);
  }
  EXPECT_EQ(std::filesystem::file_size(path), TxnIndex::kEntrySize);
  {
    std::ofstream f(path, std::ios::binary | std::ios::app);
    f.write("\x00\x05junk", 6);  // a torn entry
  }
  auto idx = TxnIndex::open(path);
  ASSERT_TRUE(idx.is_ok());
  EXPECT_EQ((*idx)->entries().size(), 1u);
  EXPECT_EQ(std::filesystem::file_size(path), TxnIndex::kEntrySize);
}

// What the hour-long chaos run found on its power-cut broker: a .txnindex
// whose unsynced tail came back with zero-filled and torn entries and
// entries twice. A torn entry's huge last stable offset ended collect()'s
// search early, so later aborts were served to read_committed consumers as
// committed data (G1a). Opening now keeps exactly the entries that can have
// been written, once each, in marker order, and rewrites the file.
TEST(TxnIndexTest, PowerCutGarbageIsDroppedAndEveryAbortStaysVisible) {
  TempDir dir;
  const std::string path = dir.sub("x.txnindex");
  const AbortedTxn e1{5, 10, 20, 21}, e2{6, 25, 40, 41}, e3{5, 50, 60, 61};
  auto entry = [](int16_t version, const AbortedTxn& t) {
    uint8_t b[TxnIndex::kEntrySize];
    encode_aborted_txn(t, b);
    b[0] = static_cast<uint8_t>(static_cast<uint16_t>(version) >> 8);
    b[1] = static_cast<uint8_t>(version & 0xff);
    return std::string(reinterpret_cast<const char*>(b), sizeof b);
  };
  {
    std::ofstream f(path, std::ios::binary);
    f << entry(0, e1) << std::string(TxnIndex::kEntrySize, '\0')  // a zero-filled page
      << entry(0, e3)                                                // out of marker order
      << entry(0, {0, 0, 45, INT64_C(0x7fff000000000000)})          // torn: a garbage LSO
      << entry(0, e2) << entry(0, e1)                                // a duplicate
      << entry(0, {0, 0, 40, 41})                                    // e2 torn: its first bytes zeroed
      << entry(1, {7, 1, 2, 3})                                      // not version 0
      << entry(0, {8, 30, 30, 31})                                   // first offset not below the marker
      << std::string(9, '\x7f');                                    // a partial entry
  }
  auto idx = TxnIndex::open(path);
  ASSERT_TRUE(idx.is_ok()) << idx.status().message();
  EXPECT_EQ((*idx)->entries(), (std::vector<AbortedTxn>{e1, e2, e3}));
  EXPECT_EQ(std::filesystem::file_size(path), 3 * TxnIndex::kEntrySize);
  std::vector<AbortedTxn> out;
  EXPECT_FALSE((*idx)->collect(0, 100, out));  // nothing ends the search early
  EXPECT_EQ(out, (std::vector<AbortedTxn>{e1, e2, e3}));
  // Opened again, the repaired file is taken as it is.
  auto again = TxnIndex::open(path);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ((*again)->entries(), (std::vector<AbortedTxn>{e1, e2, e3}));
}

// ---- producer state ----

ProducerBatch data(int64_t pid, int16_t epoch, int32_t seq, int64_t first, int64_t last, bool txn) {
  ProducerBatch b;
  b.producer_id = pid;
  b.epoch = epoch;
  b.base_sequence = seq;
  b.last_sequence = seq + static_cast<int32_t>(last - first);
  b.first_offset = first;
  b.last_offset = last;
  b.transactional = txn;
  return b;
}

ProducerBatch marker(int64_t pid, int16_t epoch, int64_t offset, bool commit, int32_t coord_epoch) {
  ProducerBatch b;
  b.producer_id = pid;
  b.epoch = epoch;
  b.first_offset = b.last_offset = offset;
  b.transactional = b.control = true;
  b.commit = commit;
  b.coordinator_epoch = coord_epoch;
  return b;
}

Status stage(ProducerStateManager& m, const ProducerBatch& b) {
  ProducerStateManager::Staged st;
  Status s = m.validate_and_stage(b, st);
  if (s) m.commit(std::move(st), b.last_offset + 1);
  return s;
}

TEST(ProducerTxnTest, TransactionsOpenCloseAndMoveTheFirstUnstableOffset) {
  ProducerStateManager m;
  EXPECT_FALSE(m.first_unstable_offset());
  ASSERT_TRUE(stage(m, data(1, 0, 0, 0, 1, true)));
  ASSERT_TRUE(stage(m, data(2, 0, 0, 2, 2, true)));
  ASSERT_TRUE(stage(m, data(1, 0, 2, 3, 3, true)));  // still the txn opened at 0
  EXPECT_EQ(m.entry(1)->current_txn_first_offset, 0);
  EXPECT_EQ(m.first_unstable_offset(), 0);
  EXPECT_EQ(m.ongoing_txn_count(), 2u);

  ASSERT_TRUE(m.check_end_txn(marker(1, 0, 4, false, 5)));
  auto done = m.apply_end_txn(marker(1, 0, 4, false, 5));
  ASSERT_TRUE(done);
  EXPECT_EQ(done->first_offset, 0);
  EXPECT_EQ(done->last_offset, 4);
  EXPECT_TRUE(done->aborted);
  EXPECT_EQ(m.last_stable_offset_after(*done), 2) << "producer 2's txn is still open at 2";
  // Completed but not yet below the high watermark: still unstable.
  EXPECT_EQ(m.first_unstable_offset(), 0);
  m.on_high_watermark(5);
  EXPECT_EQ(m.first_unstable_offset(), 2);
  EXPECT_EQ(m.entry(1)->coordinator_epoch, 5);
  EXPECT_EQ(m.entry(1)->current_txn_first_offset, -1);

  auto c = m.apply_end_txn(marker(2, 0, 5, true, 5));
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->aborted);
  EXPECT_EQ(m.last_stable_offset_after(*c), 6);
  m.on_high_watermark(6);
  EXPECT_FALSE(m.first_unstable_offset());
  // A marker with no open transaction closes nothing.
  EXPECT_FALSE(m.apply_end_txn(marker(2, 0, 6, true, 5)));
}

TEST(ProducerTxnTest, NonTransactionalBatchInsideATransactionIsRefused) {
  ProducerStateManager m;
  ASSERT_TRUE(stage(m, data(1, 0, 0, 0, 0, true)));
  Status s = stage(m, data(1, 0, 1, 1, 1, false));
  EXPECT_EQ(s.kafka_code(), code(ErrorCode::kInvalidTxnState));
}

TEST(ProducerTxnTest, FencedMarkers) {
  ProducerStateManager m;
  ASSERT_TRUE(stage(m, data(1, 3, 0, 0, 0, true)));
  (void)m.apply_end_txn(marker(1, 3, 1, true, 7));
  EXPECT_EQ(m.check_end_txn(marker(1, 2, 2, false, 7)).kafka_code(), code(ErrorCode::kInvalidProducerEpoch));
  EXPECT_EQ(m.check_end_txn(marker(1, 3, 2, false, 6)).kafka_code(),
            code(ErrorCode::kTransactionCoordinatorFenced));
  EXPECT_TRUE(m.check_end_txn(marker(1, 4, 2, false, 7)));  // a bumped epoch (timeout abort) is fine
  (void)m.apply_end_txn(marker(1, 4, 2, false, 7));
  EXPECT_EQ(m.entry(1)->epoch, 4);
  // After the bump, the producer's next batch at epoch 4 starts at sequence 0.
  EXPECT_TRUE(stage(m, data(1, 4, 0, 3, 3, true)));
}

TEST(ProducerTxnTest, ReplayRebuildsTransactions) {
  ProducerStateManager m;
  EXPECT_FALSE(m.replay(data(1, 0, 0, 0, 1, true)));
  EXPECT_FALSE(m.replay(data(2, 0, 0, 2, 2, true)));
  auto done = m.replay(marker(1, 0, 3, false, 1));
  ASSERT_TRUE(done);
  EXPECT_TRUE(done->aborted);
  EXPECT_EQ(done->first_offset, 0);
  EXPECT_EQ(m.entry(2)->current_txn_first_offset, 2);
}

// ---- Log ----

class TxnLogTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::shared_ptr<Log> log_ = testing::open_log(dir_.sub("t-0"), LogConfig{});

  int64_t lso() { return log_->last_stable_offset(log_->log_end_offset()); }

  // Producer 1 aborts offsets 0-1 and 4; producer 2 commits 2-3.
  void interleave() {
    ASSERT_TRUE(append_batch(*log_, producer_batch(1, 0, 0, 2)));   // 0-1
    ASSERT_TRUE(append_batch(*log_, producer_batch(2, 0, 0, 2)));   // 2-3
    ASSERT_TRUE(append_batch(*log_, producer_batch(1, 0, 2, 1)));   // 4
    EXPECT_EQ(lso(), 0);
    auto a = log_->append_txn_marker(1, 0, /*commit=*/false, 3, 0);  // 5
    ASSERT_TRUE(a);
    EXPECT_EQ(a->first_offset, 5);
    EXPECT_EQ(log_->last_stable_offset(5), 0) << "the abort is not below the high watermark yet";
    EXPECT_EQ(lso(), 2) << "producer 2 is still open";
    ASSERT_TRUE(log_->append_txn_marker(2, 0, /*commit=*/true, 3, 0));  // 6
    EXPECT_EQ(lso(), 7);
  }
};

TEST_F(TxnLogTest, MarkersMoveTheLsoAndAbortsAreIndexed) {
  interleave();
  auto aborted = log_->collect_aborted_txns(0, 7);
  ASSERT_EQ(aborted.size(), 1u);
  EXPECT_EQ(aborted[0], (AbortedTxn{1, 0, 5, 2}));
  EXPECT_TRUE(log_->collect_aborted_txns(6, 7).empty()) << "the abort ended before offset 6";
  Bytes raw = read_file(testing::seg_path(log_->dir(), 0, ".txnindex"));
  EXPECT_EQ(raw.size(), TxnIndex::kEntrySize);
  // The marker is a control batch a client can read.
  auto r = log_->read(5, 1 << 20, 7, true);
  ASSERT_TRUE(r);
  auto h = record::read_header(ByteSpan(r->records));
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->is_control());
  EXPECT_TRUE(h->is_transactional());
  EXPECT_EQ(h->producer_id, 1);
}

TEST_F(TxnLogTest, FencedMarkerWritesNothing) {
  ASSERT_TRUE(append_batch(*log_, producer_batch(1, 2, 0, 1)));
  auto r = log_->append_txn_marker(1, 1, true, 0, 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().kafka_code(), code(ErrorCode::kInvalidProducerEpoch));
  EXPECT_EQ(log_->log_end_offset(), 1);
  EXPECT_EQ(lso(), 0);
}

TEST_F(TxnLogTest, CleanRestartKeepsOpenTransactionsAndAborts) {
  interleave();
  ASSERT_TRUE(append_batch(*log_, producer_batch(3, 0, 0, 2)));  // 7-8, left open
  EXPECT_EQ(lso(), 7);
  ASSERT_TRUE(log_->flush());
  ASSERT_TRUE(log_->close());
  log_.reset();
  log_ = testing::open_log(dir_.sub("t-0"), LogConfig{}, /*clean=*/true);
  ASSERT_TRUE(log_);
  EXPECT_EQ(lso(), 7) << "the snapshot carries producer 3's open transaction";
  EXPECT_EQ(log_->producer_entry(3)->current_txn_first_offset, 7);
  ASSERT_EQ(log_->collect_aborted_txns(0, 9).size(), 1u);
  ASSERT_TRUE(log_->append_txn_marker(3, 0, false, 3, 0));  // 9
  EXPECT_EQ(lso(), 10);
  auto aborted = log_->collect_aborted_txns(0, 10);
  ASSERT_EQ(aborted.size(), 2u);
  EXPECT_EQ(aborted[1], (AbortedTxn{3, 7, 9, 10}));
}

TEST_F(TxnLogTest, CrashRecoveryReplaysMarkersAndRebuildsTheIndex) {
  interleave();
  ASSERT_TRUE(append_batch(*log_, producer_batch(3, 0, 0, 2)));  // 7-8, left open
  ASSERT_TRUE(log_->flush());
  const std::string dir = log_->dir();
  log_.reset();  // no close: like kill -9 (no snapshot at the end)
  std::filesystem::remove(testing::seg_path(dir, 0, ".txnindex"));  // the entry never reached disk
  log_ = testing::open_log(dir, LogConfig{}, /*clean=*/false, /*recovery_point=*/0);
  ASSERT_TRUE(log_);
  EXPECT_EQ(log_->log_end_offset(), 9);
  EXPECT_EQ(lso(), 7);
  auto aborted = log_->collect_aborted_txns(0, 9);
  ASSERT_EQ(aborted.size(), 1u);
  EXPECT_EQ(aborted[0], (AbortedTxn{1, 0, 5, 2}));
  ASSERT_TRUE(log_->append_txn_marker(3, 0, true, 3, 0));
  EXPECT_EQ(lso(), 10);
}

TEST_F(TxnLogTest, TruncationReopensTheTransaction) {
  interleave();
  ASSERT_TRUE(log_->truncate_to(5));  // the abort marker is gone
  EXPECT_TRUE(log_->collect_aborted_txns(0, 5).empty());
  EXPECT_EQ(log_->producer_entry(1)->current_txn_first_offset, 0);
  EXPECT_EQ(lso(), 0);
}

TEST_F(TxnLogTest, AbortsAreFoundAcrossSegments) {
  log_.reset();
  log_ = testing::open_log(dir_.sub("t-1"), testing::small_config());
  ASSERT_TRUE(append_batch(*log_, producer_batch(1, 0, 0, 1)));  // 0
  for (int i = 0; i < 40; ++i) testing::append(*log_, 3, 1000, 30);  // rolls several segments
  ASSERT_GT(log_->segment_count(), 2u);
  auto m = log_->append_txn_marker(1, 0, false, 0, 0);
  ASSERT_TRUE(m);
  // The entry lives in the marker's segment, yet a fetch from offset 0 sees it.
  auto aborted = log_->collect_aborted_txns(0, 3);
  ASSERT_EQ(aborted.size(), 1u);
  EXPECT_EQ(aborted[0].last_offset, m->first_offset);
  EXPECT_TRUE(std::filesystem::exists(testing::seg_path(log_->dir(), log_->segment_base_offsets().back(), ".txnindex")));
  EXPECT_FALSE(std::filesystem::exists(testing::seg_path(log_->dir(), 0, ".txnindex")));
}

}  // namespace
}  // namespace spool::storage
