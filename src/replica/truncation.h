// Follower truncation: what a follower does with its log given the leader's
// answers (Kafka's AbstractFetcherThread; KIP-101, KIP-279, KAFKA-10554).
// Truncating by leader epoch, never to the high watermark, is what keeps an
// acknowledged write from being lost and logs from diverging (KIP-101).
//
// Pure functions of a LocalLogView and the leader's answer; the caller
// applies the action to storage::Log and the fetch state. No I/O, no
// threads, no failure: every input (also nonsense such as offsets below the
// log start) maps to an action, and the action never asks to cut below what
// the inputs justify.
//
// The rules:
// - Start (start_fetching): a log with epochs fetches from its log end with
//   LastFetchedEpoch = its last batch's epoch; the leader answers with a
//   DivergingEpoch if the logs differ. Without epochs (empty, or written
//   without them) it truncates to its high watermark first.
// - Truncation offset for a leader answer (Lₑ, Lₒ) — a fetch response's
//   DivergingEpoch or an OffsetForLeaderEpoch answer:
//   * Lₒ undefined (-1): the leader knows nothing older -> truncate to the
//     fetch offset (the offset the partition was fetching from / its high
//     watermark), complete.
//   * Lₑ undefined, Lₒ defined: truncate to min(Lₒ, our log end), complete.
//   * our end_offset_for(Lₑ) = (Fₑ, Fₒ) undefined: we hold no epoch <= Lₑ ->
//     truncate to min(Lₒ, our log end), complete.
//   * Fₑ != Lₑ (we never had Lₑ): truncate to min(Fₒ, log end) and ask again
//     (KIP-279: the leader changed more than once; one round per epoch).
//   * else truncate to min(Fₒ, Lₒ, log end), complete.
//   After a DivergingEpoch the partition keeps fetching either way (the next
//   fetch carries the new LastFetchedEpoch and the leader diverges again if
//   needed); after OffsetForLeaderEpoch an incomplete round sends another
//   OffsetForLeaderEpoch with the latest epoch left after the cut.
// - OFFSET_OUT_OF_RANGE on a fetch (on_offset_out_of_range, given the
//   leader's log end and log start from ListOffsets): leader log end < ours
//   -> truncate to it (unclean election; some of our data is lost); else
//   fetch from max(leader log start, our log end), first truncating fully
//   (empty log starting at the leader's log start) when that is the larger.
// - Fetch errors (on_fetch_error): FENCED_LEADER_EPOCH parks the partition
//   until the next LeaderAndIsr when the request's epoch is still ours (else
//   we already moved on: retry); UNKNOWN_LEADER_EPOCH (the leader is behind),
//   NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION and anything else
//   retry after replica.fetch.backoff.ms; OFFSET_OUT_OF_RANGE asks the leader
//   for its offsets.
// - The leader's side (check_fetch_divergence, Kafka's Partition.readRecords):
//   for a follower Fetch with LastFetchedEpoch E >= 0 and the leader's
//   end_offset_for(E) = (e, o): e or o undefined -> OFFSET_OUT_OF_RANGE;
//   FetchOffset below the leader's log start -> OFFSET_OUT_OF_RANGE; e < E or
//   o < FetchOffset -> answer DivergingEpoch (e, o) and no records.
// After a truncation the follower fetches from its log's actual end
// (storage::Log::truncate_to drops whole batches, so it may land below the
// requested offset); its high watermark is min(its own, the new log end)
// until the next fetch response without a DivergingEpoch (fetch_builder.h).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "protocol/error_code.h"
#include "replica/local_log_view.h"

namespace spool::replica {

inline constexpr int32_t kUndefinedEpoch = -1;
inline constexpr int64_t kUndefinedOffset = -1;

// (Lₑ, Lₒ): a DivergingEpoch or an OffsetForLeaderEpoch answer.
struct EpochEndOffset {
  int32_t epoch = kUndefinedEpoch;
  int64_t end_offset = kUndefinedOffset;
};

struct TruncationOffset {
  int64_t offset = 0;
  bool complete = true;  // false: ask again (an epoch we never had)
  bool operator==(const TruncationOffset&) const = default;
};

struct FollowerAction {
  enum class Kind {
    kFetch,             // fetch from `offset`
    kTruncate,          // truncate_to(`offset`); then fetch, or ask with `epoch` if ask_again
    kTruncateFully,     // truncate_fully_and_start_at(`offset`); then fetch from it
    kAskEpoch,          // send OffsetForLeaderEpoch for `epoch`
    kAskLeaderOffsets,  // ListOffsets (latest, earliest) -> on_offset_out_of_range
    kPark,              // stop until the next LeaderAndIsr
    kRetry,             // back off, then repeat the same request
  };
  Kind kind = Kind::kFetch;
  int64_t offset = 0;
  int32_t epoch = kUndefinedEpoch;  // kAskEpoch; kTruncate with ask_again: the epoch to ask next
  bool ask_again = false;           // kTruncate: another OffsetForLeaderEpoch round follows
  bool operator==(const FollowerAction&) const = default;
};

// AbstractFetcherThread.getOffsetTruncationState.
TruncationOffset truncation_offset(const LocalLogView& log, const EpochEndOffset& leader, int64_t fetch_offset);

// Becoming follower: fetch from the log end, or truncate to `high_watermark`
// when the log has no epochs.
FollowerAction start_fetching(const LocalLogView& log, int64_t high_watermark);

// A fetch response carried DivergingEpoch (KAFKA-10554 path): truncate, then
// fetch (never an OffsetForLeaderEpoch round).
FollowerAction on_diverging_epoch(const LocalLogView& log, const EpochEndOffset& diverging, int64_t fetch_offset);

// The OffsetForLeaderEpoch request to send for a Truncating partition: for
// the latest epoch in the log; kTruncate to `high_watermark` if it has none.
FollowerAction ask_epoch(const LocalLogView& log, int64_t high_watermark);

// An OffsetForLeaderEpoch answer. `error` NONE: the truncation (with
// ask_again and the next epoch when incomplete). FENCED_LEADER_EPOCH and
// other errors as on_fetch_error.
FollowerAction on_epoch_answer(const LocalLogView& log, protocol::ErrorCode error, const EpochEndOffset& answer,
                               int64_t fetch_offset, int32_t request_leader_epoch, int32_t current_leader_epoch);

// OFFSET_OUT_OF_RANGE, given the leader's offsets.
FollowerAction on_offset_out_of_range(const LocalLogView& log, int64_t leader_log_start_offset,
                                      int64_t leader_log_end_offset);

// Leader side, see the header comment. `leader_end_for_epoch`: the leader
// log's end_offset_for_epoch(last_fetched_epoch). error NONE and no
// diverging: serve the read (which still checks the fetch offset's range).
struct FetchDivergence {
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  std::optional<EpochEndOffset> diverging;
};
FetchDivergence check_fetch_divergence(int32_t last_fetched_epoch, int64_t fetch_offset,
                                       std::pair<int32_t, int64_t> leader_end_for_epoch,
                                       int64_t leader_log_start_offset);

// A partition error in a fetch response (not NONE).
FollowerAction on_fetch_error(protocol::ErrorCode error, int32_t request_leader_epoch, int32_t current_leader_epoch);

}  // namespace spool::replica
