#include "client/consumer/subscription_state.h"

#include "protocol/error_code.h"

namespace spool::client {

Status SubscriptionState::set_type(SubscriptionType t) {
  if (type_ == SubscriptionType::kNone) {
    type_ = t;
  } else if (type_ != t) {
    return Status::error("Subscription to topics, partitions and pattern are mutually exclusive");
  }
  return Status::ok();
}

Status SubscriptionState::subscribe(const std::set<std::string>& topics) {
  if (auto s = set_type(SubscriptionType::kAutoTopics); !s) return s;
  topics_ = topics;
  return Status::ok();
}

Status SubscriptionState::subscribe_pattern(const std::string& pattern) {
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return Status::error("Invalid subscription pattern " + pattern + ": " + e.what());
  }
  if (auto s = set_type(SubscriptionType::kAutoPattern); !s) return s;
  pattern_ = std::move(re);
  pattern_text_ = pattern;
  return Status::ok();
}

Status SubscriptionState::assign_from_user(const std::set<TopicPartition>& partitions) {
  if (auto s = set_type(SubscriptionType::kUserAssigned); !s) return s;
  std::map<TopicPartition, PartitionState> next;
  for (const TopicPartition& tp : partitions) {
    auto it = assignment_.find(tp);
    next[tp] = it != assignment_.end() ? it->second : PartitionState{};
  }
  assignment_ = std::move(next);
  topics_.clear();
  for (const TopicPartition& tp : partitions) topics_.insert(tp.topic);
  return Status::ok();
}

void SubscriptionState::assign_from_subscribed(const std::set<TopicPartition>& partitions) {
  std::map<TopicPartition, PartitionState> next;
  for (const TopicPartition& tp : partitions) {
    auto it = assignment_.find(tp);
    next[tp] = it != assignment_.end() ? it->second : PartitionState{};
    next[tp].pending_revocation = false;
  }
  assignment_ = std::move(next);
}

void SubscriptionState::unsubscribe() {
  type_ = SubscriptionType::kNone;
  topics_.clear();
  pattern_.reset();
  pattern_text_.clear();
  assignment_.clear();
}

bool SubscriptionState::matches_pattern(const std::string& topic) const {
  return pattern_ && std::regex_match(topic, *pattern_);
}

bool SubscriptionState::update_pattern_topics(const std::vector<std::string>& all_topics, bool exclude_internal) {
  std::set<std::string> matched;
  for (const std::string& t : all_topics) {
    if (exclude_internal && (t == "__consumer_offsets" || t == "__transaction_state")) continue;
    if (matches_pattern(t)) matched.insert(t);
  }
  if (matched == topics_) return false;
  topics_ = std::move(matched);
  return true;
}

std::set<TopicPartition> SubscriptionState::assigned() const {
  std::set<TopicPartition> out;
  for (const auto& [tp, st] : assignment_) out.insert(tp);
  return out;
}

PartitionState* SubscriptionState::state(const TopicPartition& tp) {
  auto it = assignment_.find(tp);
  return it == assignment_.end() ? nullptr : &it->second;
}

const PartitionState* SubscriptionState::state(const TopicPartition& tp) const {
  auto it = assignment_.find(tp);
  return it == assignment_.end() ? nullptr : &it->second;
}

void SubscriptionState::seek_validated(const TopicPartition& tp, const FetchPosition& position) {
  PartitionState* st = state(tp);
  if (st == nullptr) return;
  st->position = position;
  st->state = FetchState::kFetching;
  st->next_retry_ms = 0;
}

void SubscriptionState::seek_unvalidated(const TopicPartition& tp, const FetchPosition& position) {
  PartitionState* st = state(tp);
  if (st == nullptr) return;
  st->position = position;
  st->next_retry_ms = 0;
  st->state = position.offset_epoch >= 0 && position.leader_epoch >= 0 ? FetchState::kAwaitValidation
                                                                       : FetchState::kFetching;
}

void SubscriptionState::request_reset(const TopicPartition& tp, OffsetResetStrategy strategy) {
  PartitionState* st = state(tp);
  if (st == nullptr) return;
  st->state = FetchState::kAwaitReset;
  st->reset_strategy = strategy;
  st->next_retry_ms = 0;
}

bool SubscriptionState::maybe_validate_for_leader(const TopicPartition& tp, int32_t leader_id, int32_t leader_epoch) {
  PartitionState* st = state(tp);
  if (st == nullptr || !st->position || st->state != FetchState::kFetching) return false;
  const bool epoch_changed = leader_epoch >= 0 && st->position->leader_epoch != leader_epoch;
  const int32_t old_epoch = st->position->leader_epoch;
  st->position->leader_id = leader_id;
  if (leader_epoch >= 0) st->position->leader_epoch = leader_epoch;
  // A position checked against no leader yet (epoch -1) is taken as is.
  if (epoch_changed && old_epoch >= 0 && st->position->offset_epoch >= 0) {
    st->state = FetchState::kAwaitValidation;
    st->next_retry_ms = 0;
    return true;
  }
  return false;
}

void SubscriptionState::complete_validation(const TopicPartition& tp) {
  PartitionState* st = state(tp);
  if (st != nullptr && st->state == FetchState::kAwaitValidation) st->state = FetchState::kFetching;
}

Status SubscriptionState::maybe_complete_validation(const TopicPartition& tp, const FetchPosition& requested,
                                                    int32_t end_epoch, int64_t end_offset) {
  PartitionState* st = state(tp);
  if (st == nullptr || !st->position || !(*st->position == requested)) return Status::ok();
  if (st->state != FetchState::kAwaitValidation && st->state != FetchState::kFetching) return Status::ok();
  const std::string where = tp.to_string() + " at offset " + std::to_string(requested.offset);
  if (end_offset < 0 || end_epoch < 0) {
    if (has_default_reset()) {
      request_reset(tp, default_reset_);
      return Status::ok();
    }
    return Status::error("Truncation detected for partition " + where + " with no epoch information",
                         protocol::to_int(protocol::ErrorCode::kOffsetOutOfRange));
  }
  if (end_offset < requested.offset) {
    if (has_default_reset()) {
      FetchPosition next = requested;
      next.offset = end_offset;
      next.offset_epoch = end_epoch;
      seek_validated(tp, next);
      return Status::ok();
    }
    return Status::error("Truncated partitions detected with divergent offsets: " + where +
                             " diverges at offset " + std::to_string(end_offset) + " (epoch " +
                             std::to_string(end_epoch) + ")",
                         protocol::to_int(protocol::ErrorCode::kOffsetOutOfRange));
  }
  st->state = FetchState::kFetching;
  return Status::ok();
}

void SubscriptionState::pause(const TopicPartition& tp, bool paused) {
  if (PartitionState* st = state(tp)) st->paused = paused;
}

bool SubscriptionState::is_fetchable(const TopicPartition& tp) const {
  const PartitionState* st = state(tp);
  return st != nullptr && !st->paused && !st->pending_revocation && st->state == FetchState::kFetching &&
         st->position.has_value();
}

bool SubscriptionState::has_valid_position(const TopicPartition& tp) const {
  const PartitionState* st = state(tp);
  return st != nullptr && st->position &&
         (st->state == FetchState::kFetching || st->state == FetchState::kAwaitValidation);
}

std::vector<TopicPartition> SubscriptionState::in_state(FetchState s) const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, st] : assignment_) {
    if (st.state == s) out.push_back(tp);
  }
  return out;
}

std::map<TopicPartition, OffsetAndMetadata> SubscriptionState::all_consumed() const {
  std::map<TopicPartition, OffsetAndMetadata> out;
  for (const auto& [tp, st] : assignment_) {
    if (has_valid_position(tp)) out[tp] = OffsetAndMetadata{st.position->offset, st.position->offset_epoch, ""};
  }
  return out;
}

}  // namespace spool::client
