// Truncation cases on real logs in temp dirs: leader and follower are
// storage::Log objects; the follower's decisions come from
// replica/truncation.h and are applied with the real Log APIs, records move
// leader -> follower with Log::read and Log::append_as_follower, and the
// leader answers as Kafka's does (check_fetch_divergence on its epoch cache,
// OffsetForLeaderEpoch = end_offset_for_epoch). Each case ends with the
// follower's log byte-identical to the leader's up to the leader's log end.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "record/batch_header.h"
#include "replica/truncation.h"
#include "storage/test_util.h"

namespace spool::replica {
namespace {

using storage::EpochEntry;
using storage::Log;
using storage::testing::TempDir;
using Kind = FollowerAction::Kind;

std::shared_ptr<Log> open(const TempDir& d, const std::string& name) {
  return storage::testing::open_log(d.sub(name), storage::testing::small_config());
}

// A leader write: `n` records stamped with `ts` (so replicas' batches differ).
void write(Log& log, int n, int64_t ts, int32_t epoch) {
  auto r = storage::testing::append(log, n, ts, 10, epoch);
  ASSERT_EQ(r.last_offset - r.first_offset + 1, n);
}

// Every byte of `log` from `from` to its end, batch by batch.
Bytes bytes_from(const Log& log, int64_t from) {
  Bytes out;
  int64_t off = from;
  for (int i = 0; i < 10000 && off < log.log_end_offset(); ++i) {
    auto r = log.read(off, 4096, INT64_MAX, true);
    EXPECT_TRUE(r.is_ok()) << r.status().message();
    if (!r.is_ok() || r->records.empty()) break;
    out.insert(out.end(), r->records.begin(), r->records.end());
    auto batches = storage::testing::batches_in(r->records);
    off = batches.back().second + 1;
  }
  return out;
}

void expect_identical(const Log& leader, const Log& follower) {
  EXPECT_EQ(follower.log_end_offset(), leader.log_end_offset());
  const int64_t from = std::max(leader.log_start_offset(), follower.log_start_offset());
  Bytes l = bytes_from(leader, from);
  Bytes f = bytes_from(follower, from);
  EXPECT_FALSE(l.empty());
  EXPECT_EQ(l.size(), f.size());
  EXPECT_TRUE(l == f) << "follower bytes differ from the leader's from offset " << from;
}

FollowerAction act(Kind kind, int64_t offset) {
  FollowerAction a;
  a.kind = kind;
  a.offset = offset;
  return a;
}

// Applies a truncation action to the follower log.
void apply_action(Log& follower, const FollowerAction& a) {
  switch (a.kind) {
    case Kind::kTruncate:
      ASSERT_TRUE(follower.truncate_to(a.offset));
      break;
    case Kind::kTruncateFully:
      ASSERT_TRUE(follower.truncate_fully_and_start_at(a.offset));
      break;
    case Kind::kFetch:
      break;
    default:
      FAIL() << "unexpected action " << static_cast<int>(a.kind);
  }
}

// The fetch loop, as a fetcher runs it: Fetch from the log end with
// LastFetchedEpoch; DivergingEpoch -> truncate; OFFSET_OUT_OF_RANGE -> ask
// the leader's offsets and act; otherwise append what the leader read.
// Returns every truncation action taken, in order.
std::vector<FollowerAction> replicate(const Log& leader, Log& follower) {
  std::vector<FollowerAction> taken;
  for (int round = 0; round < 200; ++round) {
    LocalLogView view = LocalLogView::of_log(follower);
    const int64_t fetch_offset = view.log_end_offset;
    const int32_t lfe = view.last_batch_epoch().value_or(-1);
    auto d = check_fetch_divergence(lfe, fetch_offset, leader.end_offset_for_epoch(lfe), leader.log_start_offset());
    bool out_of_range = d.error == protocol::ErrorCode::kOffsetOutOfRange ||
                        (!d.diverging && (fetch_offset > leader.log_end_offset() ||
                                          fetch_offset < leader.log_start_offset()));
    if (out_of_range) {
      auto a = on_offset_out_of_range(view, leader.log_start_offset(), leader.log_end_offset());
      taken.push_back(a);
      apply_action(follower, a);
      continue;
    }
    if (d.diverging) {
      auto a = on_diverging_epoch(view, *d.diverging, fetch_offset);
      taken.push_back(a);
      apply_action(follower, a);
      continue;
    }
    if (fetch_offset == leader.log_end_offset()) return taken;
    auto r = leader.read(fetch_offset, 4096, INT64_MAX, true);
    EXPECT_TRUE(r.is_ok()) << r.status().message();
    if (!r.is_ok()) return taken;
    auto appended = follower.append_as_follower(r->records);
    EXPECT_TRUE(appended.is_ok()) << appended.status().message();
    if (!appended.is_ok()) return taken;
    // The follower's log start follows the leader's (Fetch's LogStartOffset).
    int64_t leader_start = leader.log_start_offset();
    if (leader_start > follower.log_start_offset() && leader_start <= follower.log_end_offset()) {
      EXPECT_TRUE(follower.advance_log_start_offset(leader_start));
    }
  }
  ADD_FAILURE() << "replication did not converge in 200 rounds";
  return taken;
}

// The OffsetForLeaderEpoch path (a Truncating partition): ask for the latest
// epoch, truncate, ask again while the answer says so. Returns the epochs asked.
std::vector<int32_t> truncate_by_epoch_requests(const Log& leader, Log& follower, int64_t high_watermark) {
  std::vector<int32_t> asked;
  FollowerAction a = ask_epoch(LocalLogView::of_log(follower), high_watermark);
  for (int round = 0; round < 50; ++round) {
    if (a.kind != Kind::kAskEpoch) {
      apply_action(follower, a);
      return asked;
    }
    asked.push_back(a.epoch);
    auto [e, o] = leader.end_offset_for_epoch(a.epoch);
    LocalLogView view = LocalLogView::of_log(follower);
    FollowerAction t = on_epoch_answer(view, protocol::ErrorCode::kNone, {e, o}, high_watermark, 1, 1);
    EXPECT_EQ(t.kind, Kind::kTruncate);
    apply_action(follower, t);
    if (!t.ask_again) return asked;
    // The epoch asked next is the latest one the cut left.
    EXPECT_EQ(follower.latest_epoch(), t.epoch);
    a.kind = Kind::kAskEpoch;
    a.epoch = t.epoch;
  }
  ADD_FAILURE() << "OffsetForLeaderEpoch rounds did not end";
  return asked;
}

// KIP-101, case 1: truncating to the high watermark loses an acknowledged write.
// A (leader, epoch 0) has m1, m2 and acked m2 (HW 2); B has both but learnt
// only HW 1. B restarts. Truncating to its HW would drop m2, and if A then
// dies B leads without it. By epoch B keeps m2.
TEST(TruncationOnLogs, Kip101RestartedFollowerKeepsAckedData) {
  TempDir d;
  auto a = open(d, "a");
  auto b = open(d, "b");
  write(*a, 1, 1000, 0);
  write(*a, 1, 2000, 0);
  ASSERT_TRUE(replicate(*a, *b).empty());
  const int64_t b_high_watermark = 1;
  // B restarts.
  ASSERT_TRUE(b->flush());
  ASSERT_TRUE(b->close());
  b.reset();
  b = storage::testing::open_log(d.sub("b"), storage::testing::small_config(), true, 2);
  ASSERT_EQ(b->log_end_offset(), 2);
  // Starting to fetch does not cut at the high watermark.
  EXPECT_EQ(start_fetching(LocalLogView::of_log(*b), b_high_watermark), act(Kind::kFetch, 2));
  // Nor does the OffsetForLeaderEpoch path: A answers (0, 2).
  EXPECT_EQ(truncate_by_epoch_requests(*a, *b, b_high_watermark), std::vector<int32_t>{0});
  EXPECT_EQ(b->log_end_offset(), 2);
  // A dies; B leads epoch 1 with m2; A follows and loses nothing either.
  EXPECT_EQ(b->begin_leader_epoch(1), 2);
  write(*b, 1, 3000, 1);
  EXPECT_TRUE(replicate(*b, *a).empty());
  expect_identical(*b, *a);
  EXPECT_EQ(a->epoch_entries(), (std::vector<EpochEntry>{{0, 0}, {1, 2}}));
}

// KIP-101, case 2: logs diverge. A (leader, epoch 0) has m1, m2; B only m1.
// Both restart; B becomes leader (epoch 1) and writes m3 at offset 1. A's
// offset 1 (m2) is not B's (m3): A must cut it although its HW may be 2.
TEST(TruncationOnLogs, Kip101DivergedLogsConverge) {
  TempDir d;
  auto a = open(d, "a");
  auto b = open(d, "b");
  write(*a, 1, 1000, 0);
  ASSERT_TRUE(replicate(*a, *b).empty());
  write(*a, 1, 2000, 0);  // m2, never replicated
  EXPECT_EQ(b->begin_leader_epoch(1), 1);
  write(*b, 1, 3000, 1);  // m3 at offset 1
  write(*b, 2, 4000, 1);
  auto taken = replicate(*b, *a);
  // One DivergingEpoch: B's epoch 0 ends at 1 -> A cuts to 1.
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], act(Kind::kTruncate, 1));
  expect_identical(*b, *a);
  EXPECT_EQ(a->epoch_entries(), (std::vector<EpochEntry>{{0, 0}, {1, 1}}));
}

// The same divergence through OffsetForLeaderEpoch (a follower without
// truncation on fetch): one request for epoch 0, cut to 1, then fetch.
TEST(TruncationOnLogs, Kip101DivergenceThroughOffsetForLeaderEpoch) {
  TempDir d;
  auto a = open(d, "a");
  auto b = open(d, "b");
  write(*a, 1, 1000, 0);
  ASSERT_TRUE(replicate(*a, *b).empty());
  write(*a, 1, 2000, 0);
  b->begin_leader_epoch(1);
  write(*b, 3, 3000, 1);
  EXPECT_EQ(truncate_by_epoch_requests(*b, *a, /*high_watermark=*/2), std::vector<int32_t>{0});
  EXPECT_EQ(a->log_end_offset(), 1);
  EXPECT_TRUE(replicate(*b, *a).empty());  // no divergence left
  expect_identical(*b, *a);
}

// KIP-279: the leader changes twice quickly. L leads epoch 3 and writes
// 5..8 that F never gets; F leads epoch 4 and writes 5..7 that L never gets;
// L leads again in epoch 5 (stamped at its log end before any write). F
// holds an epoch L never had and L answers with an epoch F never had, so F
// must iterate: ask 4 -> (3, 9): F lacks 3, cuts to its epoch-1 end 5, asks
// 1 -> (1, 5): done at 5.
class Kip279 : public ::testing::Test {
 protected:
  void SetUp() override {
    l = open(d, "l");
    f = open(d, "f");
    write(*l, 5, 1000, 1);  // 0..4, epoch 1, on both
    ASSERT_TRUE(replicate(*l, *f).empty());
    l->begin_leader_epoch(3);
    write(*l, 4, 2000, 3);  // 5..8
    f->begin_leader_epoch(4);
    write(*f, 3, 3000, 4);  // 5..7
    EXPECT_EQ(l->begin_leader_epoch(5), 9);
    ASSERT_EQ(l->epoch_entries(), (std::vector<EpochEntry>{{1, 0}, {3, 5}, {5, 9}}));
    ASSERT_EQ(f->epoch_entries(), (std::vector<EpochEntry>{{1, 0}, {4, 5}}));
  }
  TempDir d;
  std::shared_ptr<Log> l, f;
};

TEST_F(Kip279, FollowerIteratesOffsetForLeaderEpoch) {
  // Before the fix, L without its epoch-5 stamp would answer epoch 4 with
  // (-1, -1); with it the answer is (3, 9).
  EXPECT_EQ(l->end_offset_for_epoch(4), std::make_pair(3, int64_t{9}));
  EXPECT_EQ(truncate_by_epoch_requests(*l, *f, /*high_watermark=*/5), (std::vector<int32_t>{4, 1}));
  EXPECT_EQ(f->log_end_offset(), 5);
  EXPECT_EQ(f->epoch_entries(), (std::vector<EpochEntry>{{1, 0}}));
  EXPECT_TRUE(replicate(*l, *f).empty());
  write(*l, 2, 4000, 5);  // epoch 5's first writes reach F too
  EXPECT_TRUE(replicate(*l, *f).empty());
  expect_identical(*l, *f);
  EXPECT_EQ(f->epoch_entries(), (std::vector<EpochEntry>{{1, 0}, {3, 5}, {5, 9}}));
}

TEST_F(Kip279, FollowerIteratesThroughDivergingEpochs) {
  auto taken = replicate(*l, *f);
  // Fetch(8, epoch 4) -> Diverging (3, 9): F never had 3, cuts to 5 (its
  // epoch-1 end). Fetch(5, epoch 1) -> L's epoch 1 ends at 5: no divergence.
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], act(Kind::kTruncate, 5));
  expect_identical(*l, *f);
}

// Divergent epochs several levels deep: F and L share epochs 1 and 2 up to
// 6, then L has 2 until 9 and 6 after, F has its own epoch 4 from 6.
TEST(TruncationOnLogs, DivergentEpochs) {
  TempDir d;
  auto l = open(d, "l");
  auto f = open(d, "f");
  write(*l, 3, 1000, 1);
  write(*l, 3, 1100, 2);  // 3..5
  ASSERT_TRUE(replicate(*l, *f).empty());
  write(*l, 3, 1200, 2);  // 6..8 on L only
  f->begin_leader_epoch(4);
  write(*f, 2, 2000, 4);  // 6..7
  write(*f, 2, 2100, 4);  // 8..9
  l->begin_leader_epoch(6);
  write(*l, 2, 3000, 6);  // 9..10
  // F asks epoch 4; L has 2 up to 9 -> (2, 9); F's epoch 2 ends at 6 -> cut to 6.
  auto taken = replicate(*l, *f);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], act(Kind::kTruncate, 6));
  expect_identical(*l, *f);
  EXPECT_EQ(f->epoch_entries(), (std::vector<EpochEntry>{{1, 0}, {2, 3}, {6, 9}}));
}

// The follower is ahead of the new leader: L was in the ISR with log end 7
// and was elected; F has 0..9 of the same epoch. F cuts to 7.
TEST(TruncationOnLogs, FollowerAheadOfTheNewLeader) {
  TempDir d;
  auto old_leader = open(d, "f");
  auto l = open(d, "l");
  for (int i = 0; i < 10; ++i) write(*old_leader, 1, 1000 + i, 1);
  // L replicated 0..6 only.
  {
    auto r = old_leader->read(0, 4096, 7, true);
    ASSERT_TRUE(r.is_ok());
    ASSERT_TRUE(l->append_as_follower(r->records));
  }
  ASSERT_EQ(l->log_end_offset(), 7);
  EXPECT_EQ(l->begin_leader_epoch(2), 7);
  auto& f = old_leader;
  auto taken = replicate(*l, *f);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], act(Kind::kTruncate, 7));
  EXPECT_EQ(f->log_end_offset(), 7);
  write(*l, 3, 5000, 2);
  EXPECT_TRUE(replicate(*l, *f).empty());
  expect_identical(*l, *f);
}

// The same without epochs on the follower's request (LastFetchedEpoch -1):
// FetchOffset 10 beyond the leader's end 7 is OFFSET_OUT_OF_RANGE, and the
// out-of-range rule cuts to the leader's end.
TEST(TruncationOnLogs, FollowerAheadOutOfRangeCutsToTheLeaderEnd) {
  TempDir d;
  auto f = open(d, "f");
  auto l = open(d, "l");
  for (int i = 0; i < 10; ++i) write(*f, 1, 1000 + i, 1);
  auto r = f->read(0, 4096, 7, true);
  ASSERT_TRUE(r.is_ok());
  ASSERT_TRUE(l->append_as_follower(r->records));
  LocalLogView view = LocalLogView::of_log(*f);
  auto d2 = check_fetch_divergence(-1, view.log_end_offset, l->end_offset_for_epoch(-1), l->log_start_offset());
  EXPECT_FALSE(d2.diverging);
  ASSERT_GT(view.log_end_offset, l->log_end_offset());  // the leader's read would say out of range
  auto a = on_offset_out_of_range(view, l->log_start_offset(), l->log_end_offset());
  EXPECT_EQ(a, act(Kind::kTruncate, 7));
  apply_action(*f, a);
  expect_identical(*l, *f);
}

// The follower's log ends below the leader's log start (it was away while
// retention ran): OFFSET_OUT_OF_RANGE, full truncation, fetch from the
// leader's start.
TEST(TruncationOnLogs, FullTruncationBelowTheLeaderLogStart) {
  TempDir d;
  auto l = open(d, "l");
  auto f = open(d, "f");
  for (int i = 0; i < 5; ++i) write(*l, 1, 1000 + i, 1);
  ASSERT_TRUE(replicate(*l, *f).empty());  // F has 0..4
  for (int i = 0; i < 30; ++i) write(*l, 2, 2000 + i, i < 10 ? 1 : 2);  // 5..64
  ASSERT_TRUE(l->advance_log_start_offset(40));  // inside the batch [39, 40]
  ASSERT_EQ(l->log_start_offset(), 40);
  auto taken = replicate(*l, *f);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], act(Kind::kTruncateFully, 40));
  EXPECT_EQ(f->log_start_offset(), 40);
  expect_identical(*l, *f);
  EXPECT_EQ(f->epoch_entries(), l->epoch_entries());
}

// LastFetchedEpoch is the epoch of the follower's last batch, also when the
// follower (formerly leader) stamped a newer epoch it never wrote.
TEST(TruncationOnLogs, LastBatchEpochSkipsAnUnwrittenStamp) {
  TempDir d;
  auto log = open(d, "x");
  write(*log, 2, 1000, 3);
  log->begin_leader_epoch(7);
  LocalLogView v = LocalLogView::of_log(*log);
  EXPECT_EQ(v.last_batch_epoch(), 3);
  auto r = log->read(0, 4096, INT64_MAX, true);
  ASSERT_TRUE(r.is_ok());
  auto h = record::read_header(ByteSpan(r->records));
  ASSERT_TRUE(h);
  EXPECT_EQ(h->partition_leader_epoch, 3);
  EXPECT_EQ(log->latest_epoch(), 7);
}

}  // namespace
}  // namespace spool::replica
