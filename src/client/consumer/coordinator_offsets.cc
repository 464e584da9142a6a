// ConsumerCoordinator, part 2: committed offsets (OffsetFetch), commits
// (OffsetCommit) and auto-commit (see consumer_coordinator.h).
#include <spdlog/spdlog.h>

#include "client/consumer/consumer_coordinator.h"
#include "protocol/error_code.h"
#include "protocol/offset_commit_request.h"
#include "protocol/offset_commit_response.h"
#include "protocol/offset_fetch_request.h"
#include "protocol/offset_fetch_response.h"

namespace spool::client {

using protocol::ErrorCode;

namespace {

Status coordinator_unavailable() {
  return Status::error("the group coordinator is not available", protocol::to_int(ErrorCode::kCoordinatorNotAvailable));
}

}  // namespace

void ConsumerCoordinator::on_commit_error(int16_t code, int32_t sent_generation) {
  const auto c = static_cast<ErrorCode>(code);
  if (c == ErrorCode::kCoordinatorNotAvailable || c == ErrorCode::kNotCoordinator ||
      c == ErrorCode::kRequestTimedOut || c == ErrorCode::kNetworkException) {
    mark_coordinator_unknown(std::string(protocol::error_name(c)));
  } else if (c == ErrorCode::kUnknownMemberId || c == ErrorCode::kIllegalGeneration) {
    // As Java: a member that has moved on to a newer rebalance since the
    // commit was sent keeps its state; otherwise it rejoins, keeping its
    // member id on ILLEGAL_GENERATION (the id is still valid, and a new one
    // would leave the old one in the group until its session expires).
    const bool moved_on = sent_generation != generation_id_ && rebalancing();
    if (ctx_.subscriptions.has_auto_assigned() && !moved_on) {
      reset_generation("OffsetCommit: " + std::string(protocol::error_name(c)), c == ErrorCode::kUnknownMemberId);
    }
  } else if (c == ErrorCode::kRebalanceInProgress) {
    request_rejoin("OffsetCommit: the group is rebalancing");
  } else if (c == ErrorCode::kFencedInstanceId) {
    fail(Status::error("OffsetCommit: FENCED_INSTANCE_ID", code));
  }
}

void ConsumerCoordinator::commit(const std::map<TopicPartition, OffsetAndMetadata>& offsets, CommitCallback callback) {
  if (!ctx_.config.group_id) {
    callback(Status::error("To use the group management or offset commit APIs, you must provide a valid group.id "
                           "in the consumer configuration.",
                           protocol::to_int(ErrorCode::kInvalidGroupId)));
    return;
  }
  if (offsets.empty()) {
    callback(Status::ok());
    return;
  }
  if (!coordinator_) {
    callback(coordinator_unavailable());
    return;
  }
  // A group member commits with its generation, also while it prepares to
  // rejoin (the revoke callback's commit: it is still in that generation).
  // Between JoinGroup and the assignment it has none to commit with, as in
  // Java: the commit fails at once, REBALANCE_IN_PROGRESS. A consumer
  // without group management (assign()) commits with -1 and no member id,
  // as Java's "simple" consumer.
  const bool member = ctx_.subscriptions.has_auto_assigned();
  if (member && !(generation_id_ >= 0 && (state_ == MemberState::kStable || state_ == MemberState::kPreparing))) {
    if (rebalancing()) {
      callback(Status::error("Offset commit cannot be completed since the consumer is undergoing a rebalance for "
                             "auto partition assignment. You can try completing the rebalance by calling poll() "
                             "and then retry the operation.",
                             protocol::to_int(ErrorCode::kRebalanceInProgress)));
    } else {
      callback(Status::error("Offset commit cannot be completed since the consumer is not part of an active group "
                             "for auto partition assignment; it is likely that the consumer was kicked out of the "
                             "group.",
                             protocol::to_int(ErrorCode::kUnknownMemberId)));
    }
    return;
  }
  protocol::OffsetCommitRequest req;
  req.group_id = *ctx_.config.group_id;
  req.generation_id_or_member_epoch = member ? generation_id_ : -1;
  req.member_id = member ? member_id_ : "";
  req.group_instance_id = member ? ctx_.config.group_instance_id : std::nullopt;
  for (const auto& [tp, om] : offsets) {
    if (req.topics.empty() || req.topics.back().name != tp.topic) {
      req.topics.emplace_back();
      req.topics.back().name = tp.topic;
    }
    protocol::OffsetCommitRequest::OffsetCommitRequestTopic::OffsetCommitRequestPartition p;
    p.partition_index = tp.partition;
    p.committed_offset = om.offset;
    p.committed_leader_epoch = om.leader_epoch;
    p.committed_metadata = om.metadata;
    req.topics.back().partitions.push_back(p);
  }
  SendOptions opts;
  opts.max_version = 9;  // 10 names topics by id
  auto post = ctx_.post;
  const int32_t sent_generation = req.generation_id_or_member_epoch;
  send_request<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(
      ctx_.network, *coordinator_, std::move(req),
      [this, post, callback, sent_generation](Result<Reply<protocol::OffsetCommitResponse>> r) {
        post([this, callback, sent_generation, r = std::move(r)] {
          if (!r) {
            on_commit_error(r.status().kafka_code(), sent_generation);
            callback(r.status());
            return;
          }
          for (const auto& t : r->message.topics) {
            for (const auto& p : t.partitions) {
              if (p.error_code == ErrorCode::kNone) continue;
              const int16_t code = protocol::to_int(p.error_code);
              on_commit_error(code, sent_generation);
              std::string msg = "Offset commit of " + t.name + "-" + std::to_string(p.partition_index) +
                                " failed: " + std::string(protocol::error_name(p.error_code));
              if (p.error_code == ErrorCode::kUnknownMemberId || p.error_code == ErrorCode::kIllegalGeneration) {
                msg = "Commit cannot be completed since the group has already rebalanced and assigned the "
                      "partitions to another member (" +
                      std::string(protocol::error_name(p.error_code)) + ")";
              }
              callback(Status::error(msg, code));
              return;
            }
          }
          callback(Status::ok());
        });
      },
      opts);
}

void ConsumerCoordinator::fetch_committed(const std::set<TopicPartition>& partitions, CommittedCallback callback) {
  if (!ctx_.config.group_id) {
    callback(Status::error("To use the group management or offset commit APIs, you must provide a valid group.id "
                           "in the consumer configuration.",
                           protocol::to_int(ErrorCode::kInvalidGroupId)));
    return;
  }
  if (!coordinator_) {
    callback(coordinator_unavailable());
    return;
  }
  protocol::OffsetFetchRequest req;
  req.group_id = *ctx_.config.group_id;
  req.require_stable = true;
  req.topics.emplace();
  for (const TopicPartition& tp : partitions) {
    if (req.topics->empty() || req.topics->back().name != tp.topic) {
      req.topics->emplace_back();
      req.topics->back().name = tp.topic;
    }
    req.topics->back().partition_indexes.push_back(tp.partition);
  }
  SendOptions opts;
  opts.max_version = 7;  // 8+ batches groups
  auto post = ctx_.post;
  send_request<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(
      ctx_.network, *coordinator_, std::move(req),
      [this, post, callback](Result<Reply<protocol::OffsetFetchResponse>> r) {
        post([this, callback, r = std::move(r)] {
          if (!r) {
            on_commit_error(r.status().kafka_code(), generation_id_);
            callback(r.status());
            return;
          }
          const auto& m = r->message;
          if (m.error_code != ErrorCode::kNone) {
            on_commit_error(protocol::to_int(m.error_code), generation_id_);
            callback(Status::error("OffsetFetch: " + std::string(protocol::error_name(m.error_code)),
                                   protocol::to_int(m.error_code)));
            return;
          }
          std::map<TopicPartition, OffsetAndMetadata> out;
          for (const auto& t : m.topics) {
            for (const auto& p : t.partitions) {
              if (p.error_code != ErrorCode::kNone) {
                callback(Status::error("OffsetFetch of " + t.name + "-" + std::to_string(p.partition_index) + ": " +
                                           std::string(protocol::error_name(p.error_code)),
                                       protocol::to_int(p.error_code)));
                return;
              }
              if (p.committed_offset < 0) continue;
              out[TopicPartition(t.name, p.partition_index)] =
                  OffsetAndMetadata{p.committed_offset, p.committed_leader_epoch, p.metadata.value_or("")};
            }
          }
          callback(std::move(out));
        });
      },
      opts);
}

void ConsumerCoordinator::maybe_fetch_initial_offsets() {
  const int64_t now = ctx_.now();
  if (offset_fetch_in_flight_ || now < offset_fetch_retry_ms_ || !coordinator_) return;
  if (ctx_.subscriptions.has_auto_assigned() && state_ != MemberState::kStable) return;
  auto initializing = ctx_.subscriptions.in_state(FetchState::kInitializing);
  if (initializing.empty()) return;
  offset_fetch_in_flight_ = true;
  const std::set<TopicPartition> wanted(initializing.begin(), initializing.end());
  fetch_committed(wanted, [this, wanted](Result<std::map<TopicPartition, OffsetAndMetadata>> r) {
    offset_fetch_in_flight_ = false;
    if (!r) {
      spdlog::debug("consumer: fetching committed offsets failed: {}", r.status().message());
      offset_fetch_retry_ms_ = ctx_.now() + ctx_.config.retry_backoff_ms;
      if (!protocol::is_retriable(static_cast<ErrorCode>(r.status().kafka_code()))) fail(r.status());
      return;
    }
    std::vector<std::string> undefined;
    for (const TopicPartition& tp : wanted) {
      PartitionState* st = ctx_.subscriptions.state(tp);
      if (st == nullptr || st->state != FetchState::kInitializing) continue;  // seeked meanwhile
      auto it = r->find(tp);
      if (it != r->end()) {
        auto leader = ctx_.leader(tp);
        FetchPosition pos;
        pos.offset = it->second.offset;
        pos.offset_epoch = it->second.leader_epoch;
        pos.leader_id = leader ? leader->node.id : -1;
        pos.leader_epoch = leader ? leader->epoch : -1;
        spdlog::info("consumer: setting offset for partition {} to the committed offset {}", tp.to_string(),
                     pos.offset);
        ctx_.subscriptions.seek_unvalidated(tp, pos);
      } else if (ctx_.subscriptions.has_default_reset()) {
        ctx_.subscriptions.request_reset(tp, ctx_.subscriptions.default_reset());
      } else {
        undefined.push_back(tp.to_string());
      }
    }
    if (!undefined.empty()) {
      std::string list;
      for (const std::string& s : undefined) list += (list.empty() ? "" : ", ") + s;
      fail(Status::error("Undefined offset with no reset policy for partitions: [" + list + "]",
                         protocol::to_int(ErrorCode::kOffsetOutOfRange)));
    }
    ctx_.notify_progress();
  });
}

void ConsumerCoordinator::maybe_auto_commit() {
  const int64_t now = ctx_.now();
  if (!ctx_.config.enable_auto_commit || auto_commit_in_flight_ || now < next_auto_commit_ms_ || !coordinator_) return;
  if (ctx_.subscriptions.has_auto_assigned() && state_ != MemberState::kStable) return;
  next_auto_commit_ms_ = now + ctx_.config.auto_commit_interval_ms;
  auto consumed = ctx_.subscriptions.all_consumed();
  if (consumed.empty()) return;
  auto_commit_in_flight_ = true;
  commit(consumed, [this](Status s) {
    auto_commit_in_flight_ = false;
    if (!s) spdlog::warn("consumer: asynchronous auto-commit of offsets failed: {}", s.message());
  });
}

}  // namespace spool::client
