// OffsetRequests: the consumer's offset look-ups at partition leaders
// (Kafka's OffsetFetcher and OffsetsForLeaderEpochUtils):
//   * reset_positions(): ListOffsets (earliest -2 / latest -1, at the
//     consumer's isolation level) for partitions in kAwaitReset; the answer
//     becomes the position (validated when it carries an epoch);
//   * validate_positions(): OffsetForLeaderEpoch for partitions in
//     kAwaitValidation: the leader's end offset for the position's epoch
//     (SubscriptionState::maybe_complete_validation decides: valid, reset,
//     truncated to the divergence point, or a LogTruncation error);
//   * list_offsets(): one round of ListOffsets for any timestamps (Consumer's
//     offsets_for_times, beginning_offsets, end_offsets).
// One request per leader. A partition whose leader is unknown, or that gets
// NOT_LEADER_OR_FOLLOWER, FENCED/UNKNOWN_LEADER_EPOCH,
// UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE or OFFSET_NOT_AVAILABLE,
// asks for a metadata update; resets and validations retry after
// retry.backoff.ms, list_offsets() fails with that (retriable) code and the
// caller retries within its own timeout.
// Versions: ListOffsets v1-7, OffsetForLeaderEpoch v2-4.
// Not thread-safe: the consumer loop owns it; callbacks run on the loop.
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include "client/consumer/consumer_context.h"

namespace spool::client {

class OffsetRequests {
 public:
  // Partition -> its offset; a partition without one (offsets_for_times
  // past the last record) is absent.
  using ListCallback = std::function<void(Result<std::map<TopicPartition, OffsetAndTimestamp>>)>;

  explicit OffsetRequests(ConsumerContext& ctx) : ctx_(ctx) {}

  void reset_positions();
  void validate_positions();
  void list_offsets(const std::map<TopicPartition, int64_t>& timestamps, ListCallback callback);
  // A validation's LogTruncation error, once (ok when none).
  Status take_error();

 private:
  ConsumerContext& ctx_;
  Status error_;
};

// Whether a per-partition code means "refresh metadata and retry".
bool is_stale_leader_error(int16_t code);

}  // namespace spool::client
