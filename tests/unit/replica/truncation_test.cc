// Follower truncation decisions on hand-made log views: every branch of
// Kafka's getOffsetTruncationState, the out-of-range rule and the error
// handling, with exact offsets. truncation_log_test.cc runs them on real logs.
#include <gtest/gtest.h>

#include "replica/truncation.h"

namespace spool::replica {
namespace {

using protocol::ErrorCode;
using Kind = FollowerAction::Kind;

// Epochs 1@0, 3@40, 6@70, log [10, 95).
LocalLogView view() {
  LocalLogView v;
  v.log_start_offset = 10;
  v.log_end_offset = 95;
  v.synced_offset = 95;
  v.epochs = {{1, 0}, {3, 40}, {6, 70}};
  return v;
}

FollowerAction truncate(int64_t offset, bool ask_again = false, int32_t epoch = kUndefinedEpoch) {
  FollowerAction a;
  a.kind = Kind::kTruncate;
  a.offset = offset;
  a.ask_again = ask_again;
  a.epoch = epoch;
  return a;
}

FollowerAction simple(Kind kind, int64_t offset = 0, int32_t epoch = kUndefinedEpoch) {
  FollowerAction a;
  a.kind = kind;
  a.offset = offset;
  a.epoch = epoch;
  return a;
}

TEST(LocalLogView, EpochQueries) {
  auto v = view();
  EXPECT_EQ(v.end_offset_for(6), std::make_pair(6, int64_t{95}));
  EXPECT_EQ(v.end_offset_for(4), std::make_pair(3, int64_t{70}));
  EXPECT_EQ(v.last_batch_epoch(), 6);
  EXPECT_EQ(v.latest_epoch_below(70), 3);
  EXPECT_EQ(v.latest_epoch_below(71), 6);
  EXPECT_EQ(v.latest_epoch_below(0), std::nullopt);
  // A stamp at the log end (led epoch 8, wrote nothing) is not a batch's epoch.
  v.epochs.push_back({8, 95});
  EXPECT_EQ(v.last_batch_epoch(), 6);
  // Empty log: no last batch.
  v.log_start_offset = v.log_end_offset = 95;
  EXPECT_EQ(v.last_batch_epoch(), std::nullopt);
  LocalLogView none;
  EXPECT_EQ(none.last_batch_epoch(), std::nullopt);
}

TEST(TruncationOffset, UndefinedOffsetUsesTheFetchOffset) {
  EXPECT_EQ(truncation_offset(view(), {5, kUndefinedOffset}, 60), (TruncationOffset{60, true}));
  EXPECT_EQ(truncation_offset(view(), {kUndefinedEpoch, kUndefinedOffset}, 60), (TruncationOffset{60, true}));
}

TEST(TruncationOffset, UndefinedEpochUsesTheLeaderOffsetCappedByOurEnd) {
  EXPECT_EQ(truncation_offset(view(), {kUndefinedEpoch, 80}, 60), (TruncationOffset{80, true}));
  EXPECT_EQ(truncation_offset(view(), {kUndefinedEpoch, 120}, 60), (TruncationOffset{95, true}));
}

TEST(TruncationOffset, KnownEpochIsTheMinimumOfBothEnds) {
  // Leader: epoch 3 ended at 60; ours at 70 -> 60.
  EXPECT_EQ(truncation_offset(view(), {3, 60}, 95), (TruncationOffset{60, true}));
  // Leader: epoch 3 ended at 80 (it has more of 3); ours at 70 -> 70.
  EXPECT_EQ(truncation_offset(view(), {3, 80}, 95), (TruncationOffset{70, true}));
  // Our latest epoch: our end is the log end; the leader's end caps it.
  EXPECT_EQ(truncation_offset(view(), {6, 90}, 95), (TruncationOffset{90, true}));
  EXPECT_EQ(truncation_offset(view(), {6, 200}, 95), (TruncationOffset{95, true}));
}

TEST(TruncationOffset, UnknownEpochTruncatesToOurFloorEpochEndAndAsksAgain) {
  // The leader answers epoch 5, which we never had: our floor is 3 (ends at 70).
  EXPECT_EQ(truncation_offset(view(), {5, 85}, 95), (TruncationOffset{70, false}));
  // An epoch above all of ours (no leader answers that; our cache does not
  // know it): the leader's offset, capped by our end.
  EXPECT_EQ(truncation_offset(view(), {7, 85}, 95), (TruncationOffset{85, true}));
  // Our floor epoch ends at a stamp at the log end: the log end, ask again.
  LocalLogView stamped;
  stamped.log_end_offset = 50;
  stamped.epochs = {{2, 0}, {5, 50}};
  EXPECT_EQ(truncation_offset(stamped, {4, 45}, 50), (TruncationOffset{50, false}));
}

TEST(TruncationOffset, EpochBelowOursReturnsOurFirstStartAsKnown) {
  // Our cache answers (requested, first start) below every epoch: treated as known.
  EXPECT_EQ(truncation_offset(view(), {0, 5}, 95), (TruncationOffset{0, true}));
  EXPECT_EQ(truncation_offset(view(), {0, 30}, 95), (TruncationOffset{0, true}));
}

TEST(TruncationOffset, NoEpochsAtAllUsesTheLeaderOffset) {
  LocalLogView v;
  v.log_end_offset = 50;
  EXPECT_EQ(truncation_offset(v, {4, 30}, 50), (TruncationOffset{30, true}));
  EXPECT_EQ(truncation_offset(v, {4, 80}, 50), (TruncationOffset{50, true}));
}

TEST(Truncation, StartFetching) {
  EXPECT_EQ(start_fetching(view(), 60), simple(Kind::kFetch, 95));
  LocalLogView empty;
  empty.log_start_offset = empty.log_end_offset = 30;
  EXPECT_EQ(start_fetching(empty, 30), simple(Kind::kFetch, 30));
  // Data without epochs: truncate to the high watermark first.
  LocalLogView old;
  old.log_end_offset = 50;
  EXPECT_EQ(start_fetching(old, 40), truncate(40));
  EXPECT_EQ(start_fetching(old, 70), truncate(50));
}

TEST(Truncation, DivergingEpochTruncatesThenFetches) {
  EXPECT_EQ(on_diverging_epoch(view(), {3, 60}, 95), truncate(60));
  // An epoch we never had: cut to our floor epoch's end and keep fetching
  // (the next fetch carries LastFetchedEpoch 3 and the leader answers again).
  EXPECT_EQ(on_diverging_epoch(view(), {5, 85}, 95), truncate(70));
}

TEST(Truncation, AskEpochSendsTheLatestEpoch) {
  EXPECT_EQ(ask_epoch(view(), 60), simple(Kind::kAskEpoch, 0, 6));
  LocalLogView none;
  none.log_end_offset = 50;
  EXPECT_EQ(ask_epoch(none, 40), truncate(40));
}

TEST(Truncation, EpochAnswerCompleteOrAskAgain) {
  EXPECT_EQ(on_epoch_answer(view(), ErrorCode::kNone, {3, 60}, 95, 9, 9), truncate(60));
  // KIP-279: epoch 5 unknown -> truncate to 70 and ask for epoch 3 (latest below 70).
  EXPECT_EQ(on_epoch_answer(view(), ErrorCode::kNone, {5, 85}, 95, 9, 9), truncate(70, true, 3));
  // The floor epoch ends at an unwritten stamp: cut at the log end (a no-op
  // that drops the stamp) and ask for epoch 2.
  LocalLogView stamped;
  stamped.log_end_offset = 50;
  stamped.epochs = {{2, 0}, {5, 50}};
  EXPECT_EQ(on_epoch_answer(stamped, ErrorCode::kNone, {4, 45}, 50, 9, 9), truncate(50, true, 2));
  // Incomplete but no epoch left below the cut (an inconsistent cache):
  // no further round, fetch after the cut.
  LocalLogView odd;
  odd.log_end_offset = 30;
  odd.epochs = {{2, 30}, {6, 40}};
  EXPECT_EQ(on_epoch_answer(odd, ErrorCode::kNone, {4, 45}, 30, 9, 9), truncate(30, false));
}

TEST(Truncation, EpochAnswerErrors) {
  EXPECT_EQ(on_epoch_answer(view(), ErrorCode::kFencedLeaderEpoch, {}, 95, 9, 9), simple(Kind::kPark));
  EXPECT_EQ(on_epoch_answer(view(), ErrorCode::kFencedLeaderEpoch, {}, 95, 8, 9), simple(Kind::kRetry));
  EXPECT_EQ(on_epoch_answer(view(), ErrorCode::kUnknownLeaderEpoch, {}, 95, 9, 9), simple(Kind::kRetry));
  EXPECT_EQ(on_epoch_answer(view(), ErrorCode::kNotLeaderOrFollower, {}, 95, 9, 9), simple(Kind::kRetry));
}

TEST(Truncation, OffsetOutOfRange) {
  // The leader ends below us (unclean election): truncate to its end.
  EXPECT_EQ(on_offset_out_of_range(view(), 0, 80), truncate(80));
  // The leader is ahead and its log start is below our end: fetch from our end.
  EXPECT_EQ(on_offset_out_of_range(view(), 50, 200), simple(Kind::kFetch, 95));
  EXPECT_EQ(on_offset_out_of_range(view(), 95, 200), simple(Kind::kFetch, 95));  // equal: no truncation
  // Its log start is above our end: start over there.
  EXPECT_EQ(on_offset_out_of_range(view(), 150, 200), simple(Kind::kTruncateFully, 150));
  // Equal ends: nothing to do but fetch.
  EXPECT_EQ(on_offset_out_of_range(view(), 0, 95), simple(Kind::kFetch, 95));
  // Nonsense from the leader never asks for a negative offset.
  EXPECT_EQ(on_offset_out_of_range(view(), -1, -5), truncate(0));
}

TEST(Truncation, FetchErrors) {
  EXPECT_EQ(on_fetch_error(ErrorCode::kOffsetOutOfRange, 9, 9), simple(Kind::kAskLeaderOffsets));
  EXPECT_EQ(on_fetch_error(ErrorCode::kFencedLeaderEpoch, 9, 9), simple(Kind::kPark));
  EXPECT_EQ(on_fetch_error(ErrorCode::kFencedLeaderEpoch, 8, 9), simple(Kind::kRetry));  // we moved on already
  EXPECT_EQ(on_fetch_error(ErrorCode::kUnknownLeaderEpoch, 9, 9), simple(Kind::kRetry));
  EXPECT_EQ(on_fetch_error(ErrorCode::kNotLeaderOrFollower, 9, 9), simple(Kind::kRetry));
  EXPECT_EQ(on_fetch_error(ErrorCode::kUnknownTopicOrPartition, 9, 9), simple(Kind::kRetry));
  EXPECT_EQ(on_fetch_error(ErrorCode::kKafkaStorageError, 9, 9), simple(Kind::kRetry));
}

TEST(FetchDivergence, LeaderSide) {
  using EO = std::pair<int32_t, int64_t>;
  // No LastFetchedEpoch: no check.
  auto none = check_fetch_divergence(-1, 50, EO(-1, -1), 0);
  EXPECT_EQ(none.error, ErrorCode::kNone);
  EXPECT_FALSE(none.diverging);
  // Same epoch, the leader has at least the fetch offset of it: serve.
  auto same = check_fetch_divergence(3, 50, EO(3, 50), 0);
  EXPECT_EQ(same.error, ErrorCode::kNone);
  EXPECT_FALSE(same.diverging);
  // The leader's epoch 3 ends before the fetch offset: diverge there.
  auto shorter = check_fetch_divergence(3, 50, EO(3, 40), 0);
  EXPECT_EQ(shorter.error, ErrorCode::kNone);
  ASSERT_TRUE(shorter.diverging);
  EXPECT_EQ(shorter.diverging->epoch, 3);
  EXPECT_EQ(shorter.diverging->end_offset, 40);
  // The leader never had epoch 4: its floor epoch 2 is the answer.
  auto older = check_fetch_divergence(4, 50, EO(2, 60), 0);
  ASSERT_TRUE(older.diverging);
  EXPECT_EQ(older.diverging->epoch, 2);
  EXPECT_EQ(older.diverging->end_offset, 60);
  // Unknown to the leader, or below its log start: out of range.
  EXPECT_EQ(check_fetch_divergence(4, 50, EO(-1, -1), 0).error, ErrorCode::kOffsetOutOfRange);
  EXPECT_EQ(check_fetch_divergence(4, 50, EO(4, -1), 0).error, ErrorCode::kOffsetOutOfRange);
  auto below = check_fetch_divergence(3, 50, EO(3, 40), 60);
  EXPECT_EQ(below.error, ErrorCode::kOffsetOutOfRange);
  EXPECT_FALSE(below.diverging);
}

}  // namespace
}  // namespace spool::replica
