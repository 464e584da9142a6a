// SubscriptionState: what the consumer reads and from where (Kafka's
// SubscriptionState): the subscription (topics, a regex, or partitions the
// user assigned), the assigned partitions and, for each, its fetch state and
// position, pause flag and the offsets the last fetch reported.
//
// Fetch states of an assigned partition (Java's FetchStates):
//   kInitializing    no position yet: the committed offset (with a group)
//                    or auto.offset.reset decides it;
//   kAwaitReset      a ListOffsets reset (earliest/latest) is due;
//   kAwaitValidation the position's epoch must be checked against the
//                    leader with OffsetForLeaderEpoch (after a leader epoch
//                    change, or a seek to a position that carries an epoch);
//   kFetching        the position is valid: the fetcher may use it.
// A position is (offset, the epoch of the record before it, the leader and
// leader epoch it was last checked against). seek_unvalidated() moves to
// kAwaitValidation when both epochs are known, as Java's seekUnvalidated.
//
// Mutual exclusion as Java: subscribing after assign() (or the reverse)
// without unsubscribe() fails with "Subscription to topics, partitions and
// pattern are mutually exclusive". Not thread-safe: the consumer loop owns it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "client/consumer/consumer_record.h"
#include "util/status.h"
#include "util/topic_partition.h"

namespace spool::client {

enum class SubscriptionType : int8_t { kNone, kAutoTopics, kAutoPattern, kUserAssigned };
enum class FetchState : int8_t { kInitializing, kAwaitReset, kAwaitValidation, kFetching };

struct FetchPosition {
  int64_t offset = 0;
  int32_t offset_epoch = -1;   // epoch of the last consumed record; -1 unknown
  int32_t leader_id = -1;      // the leader the position was checked against
  int32_t leader_epoch = -1;
  bool operator==(const FetchPosition&) const = default;
};

struct PartitionState {
  FetchState state = FetchState::kInitializing;
  std::optional<FetchPosition> position;
  OffsetResetStrategy reset_strategy = OffsetResetStrategy::kNone;  // the pending reset's
  bool paused = false;
  bool pending_revocation = false;
  int64_t high_watermark = -1;
  int64_t log_start_offset = -1;
  int64_t last_stable_offset = -1;
  int64_t next_retry_ms = 0;  // reset / validation / committed-offset backoff
};

class SubscriptionState {
 public:
  explicit SubscriptionState(OffsetResetStrategy default_reset) : default_reset_(default_reset) {}

  Status subscribe(const std::set<std::string>& topics);
  Status subscribe_pattern(const std::string& pattern);
  Status assign_from_user(const std::set<TopicPartition>& partitions);
  // The group's assignment (keeps the state of partitions kept).
  void assign_from_subscribed(const std::set<TopicPartition>& partitions);
  void unsubscribe();

  SubscriptionType type() const { return type_; }
  bool has_auto_assigned() const { return type_ == SubscriptionType::kAutoTopics || type_ == SubscriptionType::kAutoPattern; }
  const std::set<std::string>& subscription() const { return topics_; }
  const std::string& pattern_text() const { return pattern_text_; }
  // For a regex subscription: replaces the matched topic set; true if it changed.
  bool update_pattern_topics(const std::vector<std::string>& all_topics, bool exclude_internal);
  bool matches_pattern(const std::string& topic) const;

  bool is_assigned(const TopicPartition& tp) const { return assignment_.count(tp) > 0; }
  std::set<TopicPartition> assigned() const;
  PartitionState* state(const TopicPartition& tp);
  const PartitionState* state(const TopicPartition& tp) const;
  std::map<TopicPartition, PartitionState>& partitions() { return assignment_; }

  OffsetResetStrategy default_reset() const { return default_reset_; }
  bool has_default_reset() const { return default_reset_ != OffsetResetStrategy::kNone; }

  void seek_validated(const TopicPartition& tp, const FetchPosition& position);
  void seek_unvalidated(const TopicPartition& tp, const FetchPosition& position);
  void request_reset(const TopicPartition& tp, OffsetResetStrategy strategy);
  // Metadata reports the partition's leader: moves a fetching position to
  // kAwaitValidation when the leader epoch changed and the position has an
  // epoch (returns true then).
  bool maybe_validate_for_leader(const TopicPartition& tp, int32_t leader_id, int32_t leader_epoch);
  void complete_validation(const TopicPartition& tp);
  // Java's maybeCompleteValidation, with the leader's answer for the epoch of
  // `requested` (an OffsetForLeaderEpoch result or a Fetch diverging epoch):
  // no answer (epoch or offset -1) resets per auto.offset.reset; an end
  // offset below the position means the log was truncated: the position
  // moves to that end offset (with a reset policy, as Java) or the
  // LogTruncation error is returned (auto.offset.reset=none); otherwise the
  // position is valid. Ignored when the position moved meanwhile.
  Status maybe_complete_validation(const TopicPartition& tp, const FetchPosition& requested, int32_t end_epoch,
                                   int64_t end_offset);
  void pause(const TopicPartition& tp, bool paused);

  // Assigned, not paused, not being revoked, with a valid position.
  bool is_fetchable(const TopicPartition& tp) const;
  bool has_valid_position(const TopicPartition& tp) const;
  std::vector<TopicPartition> in_state(FetchState s) const;
  // Every assigned partition's consumed position (those with a valid one).
  std::map<TopicPartition, OffsetAndMetadata> all_consumed() const;

 private:
  Status set_type(SubscriptionType t);

  OffsetResetStrategy default_reset_;
  SubscriptionType type_ = SubscriptionType::kNone;
  std::set<std::string> topics_;      // subscribed (or matched by the regex)
  std::string pattern_text_;
  std::optional<std::regex> pattern_;
  std::map<TopicPartition, PartitionState> assignment_;
};

}  // namespace spool::client
