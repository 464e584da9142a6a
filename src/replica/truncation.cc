#include "replica/truncation.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace spool::replica {

using protocol::ErrorCode;

TruncationOffset truncation_offset(const LocalLogView& log, const EpochEndOffset& leader, int64_t fetch_offset) {
  const int64_t leo = log.log_end_offset;
  if (leader.end_offset == kUndefinedOffset) return {fetch_offset, true};
  if (leader.epoch == kUndefinedEpoch) return {std::min(leader.end_offset, leo), true};
  auto [our_epoch, our_end] = log.end_offset_for(leader.epoch);
  if (our_end == kUndefinedOffset) return {std::min(leader.end_offset, leo), true};
  if (our_epoch != leader.epoch) return {std::min(our_end, leo), false};
  return {std::min({our_end, leader.end_offset, leo}), true};
}

FollowerAction start_fetching(const LocalLogView& log, int64_t high_watermark) {
  FollowerAction a;
  if (log.last_batch_epoch() || log.log_end_offset <= log.log_start_offset) {
    a.kind = FollowerAction::Kind::kFetch;
    a.offset = log.log_end_offset;
    return a;
  }
  a.kind = FollowerAction::Kind::kTruncate;
  a.offset = std::min(high_watermark, log.log_end_offset);
  return a;
}

FollowerAction on_diverging_epoch(const LocalLogView& log, const EpochEndOffset& diverging, int64_t fetch_offset) {
  TruncationOffset t = truncation_offset(log, diverging, fetch_offset);
  spdlog::info("follower: leader diverges at epoch {} end offset {}; truncating to {} (log end {})", diverging.epoch,
               diverging.end_offset, t.offset, log.log_end_offset);
  FollowerAction a;
  a.kind = FollowerAction::Kind::kTruncate;
  a.offset = t.offset;
  return a;
}

FollowerAction ask_epoch(const LocalLogView& log, int64_t high_watermark) {
  FollowerAction a;
  if (log.epochs.empty()) {
    a.kind = FollowerAction::Kind::kTruncate;
    a.offset = std::min(high_watermark, log.log_end_offset);
    return a;
  }
  a.kind = FollowerAction::Kind::kAskEpoch;
  a.epoch = log.epochs.back().epoch;
  return a;
}

FollowerAction on_epoch_answer(const LocalLogView& log, ErrorCode error, const EpochEndOffset& answer,
                               int64_t fetch_offset, int32_t request_leader_epoch, int32_t current_leader_epoch) {
  if (error != ErrorCode::kNone) return on_fetch_error(error, request_leader_epoch, current_leader_epoch);
  TruncationOffset t = truncation_offset(log, answer, fetch_offset);
  FollowerAction a;
  a.kind = FollowerAction::Kind::kTruncate;
  a.offset = t.offset;
  if (!t.complete) {
    auto next = log.latest_epoch_below(t.offset);
    if (next) {
      a.ask_again = true;
      a.epoch = *next;
    }
  }
  spdlog::info("follower: leader answers epoch {} end offset {}; truncating to {}{}", answer.epoch,
               answer.end_offset, t.offset, a.ask_again ? " and asking again" : "");
  return a;
}

FollowerAction on_offset_out_of_range(const LocalLogView& log, int64_t leader_log_start_offset,
                                      int64_t leader_log_end_offset) {
  FollowerAction a;
  if (leader_log_end_offset < log.log_end_offset) {
    spdlog::warn("follower: leader log end {} below ours {}; truncating to it", leader_log_end_offset,
                 log.log_end_offset);
    a.kind = FollowerAction::Kind::kTruncate;
    a.offset = std::max<int64_t>(leader_log_end_offset, 0);
    return a;
  }
  if (leader_log_start_offset > log.log_end_offset) {
    spdlog::warn("follower: our log end {} is below the leader's log start {}; truncating fully",
                 log.log_end_offset, leader_log_start_offset);
    a.kind = FollowerAction::Kind::kTruncateFully;
    a.offset = leader_log_start_offset;
    return a;
  }
  a.kind = FollowerAction::Kind::kFetch;
  a.offset = log.log_end_offset;
  return a;
}

FetchDivergence check_fetch_divergence(int32_t last_fetched_epoch, int64_t fetch_offset,
                                       std::pair<int32_t, int64_t> leader_end_for_epoch,
                                       int64_t leader_log_start_offset) {
  FetchDivergence d;
  if (last_fetched_epoch < 0) return d;
  auto [epoch, end] = leader_end_for_epoch;
  if (epoch == kUndefinedEpoch || end == kUndefinedOffset || fetch_offset < leader_log_start_offset) {
    d.error = ErrorCode::kOffsetOutOfRange;
    return d;
  }
  if (epoch < last_fetched_epoch || end < fetch_offset) d.diverging = EpochEndOffset{epoch, end};
  return d;
}

FollowerAction on_fetch_error(ErrorCode error, int32_t request_leader_epoch, int32_t current_leader_epoch) {
  FollowerAction a;
  switch (error) {
    case ErrorCode::kOffsetOutOfRange:
      a.kind = FollowerAction::Kind::kAskLeaderOffsets;
      return a;
    case ErrorCode::kFencedLeaderEpoch:
      // Our epoch is older than the leader's. If we have not learnt a newer
      // one since the request went out, wait for the LeaderAndIsr carrying it.
      a.kind = request_leader_epoch == current_leader_epoch ? FollowerAction::Kind::kPark
                                                            : FollowerAction::Kind::kRetry;
      return a;
    default:
      a.kind = FollowerAction::Kind::kRetry;
      return a;
  }
}

}  // namespace spool::replica
