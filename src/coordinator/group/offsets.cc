// Committed offsets: OffsetCommit, OffsetFetch, OffsetDelete and retention
// (Kafka's handleCommitOffsets, getOffsets, handleDeleteOffsets,
// cleanupGroupMetadata; KIP-211 expiry).
#include <algorithm>

#include "coordinator/group/coordinator_impl.h"
#include "coordinator/group/group_records.h"

namespace spool::coordinator {

ErrorCode group_store_error(const Status& s) {
  if (s.is_ok()) return ErrorCode::kNone;
  const auto code = static_cast<ErrorCode>(s.kafka_code());
  switch (code) {
    case ErrorCode::kUnknownTopicOrPartition:
    case ErrorCode::kNotEnoughReplicas:
    case ErrorCode::kNotEnoughReplicasAfterAppend:
    case ErrorCode::kRequestTimedOut:
      return ErrorCode::kCoordinatorNotAvailable;
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kKafkaStorageError:
      return ErrorCode::kNotCoordinator;
    case ErrorCode::kMessageTooLarge:
    case ErrorCode::kRecordListTooLarge:
    case ErrorCode::kInvalidFetchSize:
      return ErrorCode::kUnknownServerError;
    case ErrorCode::kNone:
      return ErrorCode::kUnknownServerError;  // a failed Status without a code
    default:
      return code;
  }
}

ErrorCode offset_store_error(const Status& s) {
  if (s.is_ok()) return ErrorCode::kNone;
  switch (static_cast<ErrorCode>(s.kafka_code())) {
    case ErrorCode::kMessageTooLarge:
    case ErrorCode::kRecordListTooLarge:
    case ErrorCode::kInvalidFetchSize:
      return ErrorCode::kInvalidCommitOffsetSize;
    default:
      return group_store_error(s);
  }
}

void GroupCoordinator::Impl::commit(OffsetCommitParams p, std::function<void(PartitionErrors)> done) {
  auto all = [&](ErrorCode e) {
    PartitionErrors out;
    for (const auto& o : p.offsets) out.emplace_back(o.tp, e);
    return out;
  };
  // Kafka accepts an empty group id for commits (old simple consumers).
  if (ErrorCode e = status_for(p.group_id); e != ErrorCode::kNone) return done(all(e));
  const bool simple = p.generation_id < 0 && p.member_id.empty() && !p.group_instance_id;
  std::shared_ptr<Group> g = get_or_create_group(p.group_id, p.generation_id < 0);
  if (!g) return done(all(p.group_id_not_found ? ErrorCode::kGroupIdNotFound : ErrorCode::kIllegalGeneration));
  GroupLock gl(*g);
  auto answer = [&](ErrorCode e) { g->defer([done = std::move(done), r = all(e)]() mutable { done(std::move(r)); }); };
  if (g->is(GroupState::kDead)) return answer(ErrorCode::kCoordinatorNotAvailable);
  if (!simple) {
    if (g->is_static_member_fenced(p.member_id, p.group_instance_id)) return answer(ErrorCode::kFencedInstanceId);
    if (!g->has(p.member_id)) return answer(ErrorCode::kUnknownMemberId);
    if (p.generation_id != g->generation) return answer(ErrorCode::kIllegalGeneration);
  } else if (!g->is(GroupState::kEmpty)) {
    return answer(ErrorCode::kUnknownMemberId);  // only members commit for an active group
  }
  if (g->is(GroupState::kCompletingRebalance)) return answer(ErrorCode::kRebalanceInProgress);
  if (!simple) {
    // A commit proves the member alive (Stable or PreparingRebalance).
    schedule_heartbeat(g, *g->get(p.member_id), g->get(p.member_id)->session_timeout_ms);
  }

  const int64_t now = wall_now();
  const int64_t order = next_log_order.fetch_add(1);
  auto accepted = std::make_shared<std::vector<std::pair<TopicPartitionKey, OffsetEntry>>>();
  std::vector<LogRecord> records;
  for (const auto& o : p.offsets) {
    const std::string meta = o.metadata.value_or("");
    if (static_cast<int64_t>(meta.size()) > opts.offset_metadata_max_bytes) continue;
    OffsetEntry e;
    e.offset = o.offset;
    e.leader_epoch = o.leader_epoch;
    e.metadata = meta;
    e.commit_timestamp = now;
    e.expire_timestamp = p.retention_time_ms >= 0 ? now + p.retention_time_ms : -1;
    e.log_order = order;
    OffsetRecordValue v{e.offset, e.leader_epoch, e.metadata, e.commit_timestamp, e.expire_timestamp};
    records.push_back(LogRecord{encode_key(OffsetRecordKey{g->id, o.tp.topic, o.tp.partition}), encode_value(v)});
    accepted->emplace_back(o.tp, std::move(e));
  }
  auto per_partition = [limit = opts.offset_metadata_max_bytes, offsets = p.offsets](ErrorCode e) {
    PartitionErrors out;
    for (const auto& o : offsets) {
      const bool too_large = static_cast<int64_t>(o.metadata.value_or("").size()) > limit;
      out.emplace_back(o.tp, too_large ? ErrorCode::kOffsetMetadataTooLarge : e);
    }
    return out;
  };
  if (records.empty()) {
    g->defer([done = std::move(done), r = per_partition(ErrorCode::kNone)]() mutable { done(std::move(r)); });
    return;
  }
  for (const auto& [tp, e] : *accepted) ++g->pending_offset_commits[tp];
  // Visible to fetches only once durable.
  log.append(g->partition, std::move(records),
             [g, accepted, per_partition, done = std::move(done)](Status s) mutable {
               const ErrorCode e = offset_store_error(s);
               {
                 GroupLock inner(*g);
                 for (auto& [tp, entry] : *accepted) {
                   auto it = g->pending_offset_commits.find(tp);
                   if (it != g->pending_offset_commits.end() && --it->second <= 0) g->pending_offset_commits.erase(it);
                   if (e == ErrorCode::kNone && !g->is(GroupState::kDead)) g->put_offset_if_newer(tp, entry);
                 }
                 g->defer([done = std::move(done), r = per_partition(e)]() mutable { done(std::move(r)); });
               }
             });
}

OffsetFetchResult GroupCoordinator::Impl::fetch(const std::string& group_id,
                                                const std::optional<std::vector<TopicPartitionKey>>& tps,
                                                bool require_stable) {
  OffsetFetchResult r;
  if (ErrorCode e = status_for(group_id); e != ErrorCode::kNone) {
    r.error = e;
    return r;
  }
  auto none = [](const TopicPartitionKey& tp) {
    CommittedOffset c;
    c.tp = tp;
    c.metadata = "";
    return c;
  };
  std::shared_ptr<Group> g = get_group(group_id);
  std::unique_ptr<GroupLock> gl;
  if (g) gl = std::make_unique<GroupLock>(*g);
  if (!g || g->is(GroupState::kDead)) {
    if (tps) {
      for (const auto& tp : *tps) r.offsets.push_back(none(tp));
    }
    return r;
  }
  auto entry = [](const TopicPartitionKey& tp, const OffsetEntry& e) {
    CommittedOffset c;
    c.tp = tp;
    c.offset = e.offset;
    c.leader_epoch = e.leader_epoch;
    c.metadata = e.metadata;
    return c;
  };
  if (!tps) {
    for (const auto& [tp, e] : g->offsets) r.offsets.push_back(entry(tp, e));
    return r;
  }
  for (const auto& tp : *tps) {
    if (require_stable && g->has_pending_commit(tp)) {
      CommittedOffset c = none(tp);
      c.error = ErrorCode::kUnstableOffsetCommit;
      r.offsets.push_back(std::move(c));
      continue;
    }
    auto it = g->offsets.find(tp);
    r.offsets.push_back(it == g->offsets.end() ? none(tp) : entry(tp, it->second));
  }
  return r;
}

std::vector<LogRecord> GroupCoordinator::Impl::cleanup_group(const std::shared_ptr<Group>& g,
                                                             const std::vector<TopicPartitionKey>& tps) {
  std::vector<LogRecord> records;
  for (const auto& tp : tps) {
    g->drop_pending_txn_offsets(tp);
    if (g->offsets.erase(tp)) {
      records.push_back(LogRecord{encode_key(OffsetRecordKey{g->id, tp.topic, tp.partition}), std::nullopt});
    }
  }
  if (g->is(GroupState::kEmpty) && g->offsets.empty() && g->pending_offset_commits.empty() &&
      !g->has_pending_txn_offsets()) {
    g->transition_to(GroupState::kDead, wall_now());
    forget_group(g);
    records.push_back(LogRecord{encode_key(GroupRecordKey{g->id}), std::nullopt});
  }
  return records;
}

void GroupCoordinator::Impl::delete_offsets(const std::string& group_id, const std::vector<TopicPartitionKey>& tps,
                                            std::function<void(ErrorCode, PartitionErrors)> done) {
  if (group_id.empty()) return done(ErrorCode::kInvalidGroupId, {});
  if (ErrorCode e = status_for(group_id); e != ErrorCode::kNone) return done(e, {});
  std::shared_ptr<Group> g = get_group(group_id);
  if (!g) return done(ErrorCode::kGroupIdNotFound, {});
  GroupLock gl(*g);
  auto answer = [&](ErrorCode e, PartitionErrors pe) {
    g->defer([done = std::move(done), e, pe = std::move(pe)]() mutable { done(e, std::move(pe)); });
  };
  if (g->is(GroupState::kDead)) return answer(ErrorCode::kGroupIdNotFound, {});
  auto errors = std::make_shared<PartitionErrors>();
  std::vector<TopicPartitionKey> eligible;
  if (g->is(GroupState::kEmpty)) {
    eligible = tps;
  } else if (g->protocol_type && *g->protocol_type == "consumer") {
    for (const auto& tp : tps) {
      if (g->is_subscribed_to_topic(tp.topic)) {
        errors->emplace_back(tp, ErrorCode::kGroupSubscribedToTopic);
      } else {
        eligible.push_back(tp);
      }
    }
  } else {
    return answer(ErrorCode::kNonEmptyGroup, {});
  }
  for (const auto& tp : eligible) errors->emplace_back(tp, ErrorCode::kNone);
  std::vector<LogRecord> records = cleanup_group(g, eligible);
  if (records.empty()) return answer(ErrorCode::kNone, std::move(*errors));
  log.append(g->partition, std::move(records), [g, errors, done = std::move(done)](Status s) mutable {
    const ErrorCode e = group_store_error(s);
    if (e != ErrorCode::kNone) {
      for (auto& [tp, pe] : *errors) {
        if (pe == ErrorCode::kNone) pe = e;
      }
    }
    GroupLock inner(*g);
    g->defer([done = std::move(done), errors] { done(ErrorCode::kNone, *errors); });
  });
}

int GroupCoordinator::Impl::expire_offsets() {
  std::vector<std::shared_ptr<Group>> all;
  {
    std::shared_lock lk(mu);
    for (const auto& [id, g] : groups) all.push_back(g);
  }
  const int64_t now = wall_now();
  int expired = 0;
  for (const auto& g : all) {
    GroupLock gl(*g);
    if (g->is(GroupState::kDead)) continue;
    // KIP-211: an Empty group's offsets age from when it became empty; a
    // consumer group with members only loses offsets of topics nobody
    // subscribes to; a simple (protocol-less) group ages per commit.
    std::optional<int64_t> base_state;
    const std::set<std::string>* subscribed = nullptr;
    static const std::set<std::string> kNoTopics;
    if (g->protocol_type && g->is(GroupState::kEmpty)) {
      if (g->state_timestamp_ms >= 0) base_state = g->state_timestamp_ms;
      subscribed = &kNoTopics;
    } else if (g->protocol_type && *g->protocol_type == "consumer" && g->subscribed_topics &&
               g->is(GroupState::kStable)) {
      subscribed = &*g->subscribed_topics;
    } else if (!g->protocol_type) {
      subscribed = &kNoTopics;
    } else {
      continue;
    }
    std::vector<TopicPartitionKey> victims;
    for (const auto& [tp, e] : g->offsets) {
      if (subscribed->count(tp.topic) || g->has_pending_commit(tp)) continue;
      const bool due = e.expire_timestamp >= 0
                           ? now >= e.expire_timestamp
                           : now - base_state.value_or(e.commit_timestamp) >= opts.offsets_retention_ms;
      if (due) victims.push_back(tp);
    }
    expired += static_cast<int>(victims.size());
    std::vector<LogRecord> records = cleanup_group(g, victims);
    if (!records.empty()) log.append(g->partition, std::move(records), [](Status) {});
  }
  return expired;
}

}  // namespace spool::coordinator
