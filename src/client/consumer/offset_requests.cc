#include "client/consumer/offset_requests.h"

#include <spdlog/spdlog.h>

#include "protocol/error_code.h"
#include "protocol/list_offsets_request.h"
#include "protocol/list_offsets_response.h"
#include "protocol/offset_for_leader_epoch_request.h"
#include "protocol/offset_for_leader_epoch_response.h"

namespace spool::client {

using protocol::ErrorCode;

bool is_stale_leader_error(int16_t code) {
  const auto c = static_cast<ErrorCode>(code);
  return c == ErrorCode::kNotLeaderOrFollower || c == ErrorCode::kFencedLeaderEpoch ||
         c == ErrorCode::kUnknownLeaderEpoch || c == ErrorCode::kUnknownTopicOrPartition ||
         c == ErrorCode::kLeaderNotAvailable || c == ErrorCode::kOffsetNotAvailable ||
         c == ErrorCode::kReplicaNotAvailable || c == ErrorCode::kKafkaStorageError;
}

namespace {

struct ListRound {
  size_t pending = 0;
  std::map<TopicPartition, OffsetAndTimestamp> found;
  Status error;
  OffsetRequests::ListCallback callback;
};

}  // namespace

void OffsetRequests::list_offsets(const std::map<TopicPartition, int64_t>& timestamps, ListCallback callback) {
  std::map<int32_t, std::pair<Node, protocol::ListOffsetsRequest>> per_node;
  for (const auto& [tp, ts] : timestamps) {
    auto leader = ctx_.leader(tp);
    if (!leader) {
      ctx_.metadata.add_topic(tp.topic);
      ctx_.metadata.request_update();
      callback(Status::error("no leader known for " + tp.to_string(),
                             protocol::to_int(ErrorCode::kLeaderNotAvailable)));
      return;
    }
    auto& [node, req] = per_node[leader->node.id];
    node = leader->node;
    req.replica_id = -1;
    req.isolation_level = static_cast<int8_t>(ctx_.config.isolation_level);
    if (req.topics.empty() || req.topics.back().name != tp.topic) {
      req.topics.emplace_back();
      req.topics.back().name = tp.topic;
    }
    protocol::ListOffsetsRequest::ListOffsetsTopic::ListOffsetsPartition p;
    p.partition_index = tp.partition;
    p.current_leader_epoch = leader->epoch;
    p.timestamp = ts;
    req.topics.back().partitions.push_back(p);
  }
  if (per_node.empty()) {
    callback(std::map<TopicPartition, OffsetAndTimestamp>{});
    return;
  }
  auto round = std::make_shared<ListRound>();
  round->pending = per_node.size();
  round->callback = std::move(callback);
  for (auto& [id, entry] : per_node) {
    SendOptions opts;
    opts.min_version = 1;
    opts.max_version = 7;
    auto post = ctx_.post;
    send_request<protocol::ListOffsetsRequest, protocol::ListOffsetsResponse>(
        ctx_.network, entry.first, std::move(entry.second),
        [this, post, round](Result<Reply<protocol::ListOffsetsResponse>> r) {
          post([this, round, r = std::move(r)] {
            if (!r) {
              if (round->error.is_ok()) round->error = r.status();
              ctx_.metadata.request_update();
            } else {
              for (const auto& t : r->message.topics) {
                for (const auto& p : t.partitions) {
                  const int16_t code = protocol::to_int(p.error_code);
                  if (code != 0) {
                    if (is_stale_leader_error(code)) ctx_.metadata.request_update();
                    if (round->error.is_ok()) {
                      round->error = Status::error("ListOffsets for " + t.name + "-" +
                                                       std::to_string(p.partition_index) + ": " +
                                                       std::string(protocol::error_name(p.error_code)),
                                                   code);
                    }
                    continue;
                  }
                  if (p.offset >= 0) {
                    round->found[TopicPartition(t.name, p.partition_index)] =
                        OffsetAndTimestamp{p.offset, p.timestamp, p.leader_epoch};
                  }
                }
              }
            }
            if (--round->pending > 0) return;
            if (!round->error.is_ok()) {
              round->callback(round->error);
            } else {
              round->callback(std::move(round->found));
            }
          });
        },
        opts);
  }
}

void OffsetRequests::reset_positions() {
  const int64_t now = ctx_.now();
  // One round per leader, so an unknown leader holds up only its partitions
  // (they wait for the metadata update, without a backoff).
  std::map<int32_t, std::map<TopicPartition, int64_t>> by_leader;
  for (auto& [tp, st] : ctx_.subscriptions.partitions()) {
    if (st.state != FetchState::kAwaitReset || st.next_retry_ms > now) continue;
    if (st.reset_strategy == OffsetResetStrategy::kNone) continue;
    auto leader = ctx_.leader(tp);
    if (!leader) {
      ctx_.metadata.request_update();
      continue;
    }
    by_leader[leader->node.id][tp] =
        st.reset_strategy == OffsetResetStrategy::kEarliest ? kEarliestTimestamp : kLatestTimestamp;
    st.next_retry_ms = now + ctx_.config.request_timeout_ms;  // in flight
  }
  for (auto& entry : by_leader) {
    // A named copy: a structured binding cannot be captured before C++20's P1091 (clang < 16).
    const std::map<TopicPartition, int64_t> group = entry.second;
    list_offsets(group, [this, group](Result<std::map<TopicPartition, OffsetAndTimestamp>> r) {
      for (const auto& [tp, ts] : group) {
        PartitionState* st = ctx_.subscriptions.state(tp);
        if (st == nullptr || st->state != FetchState::kAwaitReset) continue;
        const int64_t expected = st->reset_strategy == OffsetResetStrategy::kEarliest ? kEarliestTimestamp
                                                                                      : kLatestTimestamp;
        if (expected != ts) continue;  // another reset was asked for meanwhile
        auto found = r ? r->find(tp) : std::map<TopicPartition, OffsetAndTimestamp>::iterator{};
        if (!r || found == r->end()) {
          st->next_retry_ms = ctx_.now() + ctx_.config.retry_backoff_ms;
          continue;
        }
        auto leader = ctx_.leader(tp);
        FetchPosition pos;
        pos.offset = found->second.offset;
        pos.offset_epoch = found->second.leader_epoch;
        pos.leader_id = leader ? leader->node.id : -1;
        pos.leader_epoch = leader ? leader->epoch : -1;
        spdlog::debug("consumer: resetting offset for {} to position {}", tp.to_string(), pos.offset);
        ctx_.subscriptions.seek_unvalidated(tp, pos);
      }
      ctx_.notify_progress();
    });
  }
}

void OffsetRequests::validate_positions() {
  const int64_t now = ctx_.now();
  std::map<int32_t, std::pair<Node, std::map<TopicPartition, FetchPosition>>> per_node;
  for (auto& [tp, st] : ctx_.subscriptions.partitions()) {
    if (st.state != FetchState::kAwaitValidation || st.next_retry_ms > now || !st.position) continue;
    auto leader = ctx_.leader(tp);
    if (!leader) {
      ctx_.metadata.request_update();
      continue;
    }
    if (st.position->offset_epoch < 0) {  // nothing to validate against
      ctx_.subscriptions.complete_validation(tp);
      continue;
    }
    st.next_retry_ms = now + ctx_.config.request_timeout_ms;
    auto& entry = per_node[leader->node.id];
    entry.first = leader->node;
    entry.second[tp] = *st.position;
  }
  for (auto& [id, entry] : per_node) {
    protocol::OffsetForLeaderEpochRequest req;
    req.replica_id = -1;
    for (const auto& [tp, pos] : entry.second) {
      if (req.topics.empty() || req.topics.back().topic != tp.topic) {
        req.topics.emplace_back();
        req.topics.back().topic = tp.topic;
      }
      protocol::OffsetForLeaderEpochRequest::OffsetForLeaderTopic::OffsetForLeaderPartition p;
      p.partition = tp.partition;
      p.current_leader_epoch = pos.leader_epoch;
      p.leader_epoch = pos.offset_epoch;
      req.topics.back().partitions.push_back(p);
    }
    SendOptions opts;
    opts.min_version = 2;
    opts.max_version = 4;
    auto post = ctx_.post;
    auto positions = std::make_shared<std::map<TopicPartition, FetchPosition>>(std::move(entry.second));
    send_request<protocol::OffsetForLeaderEpochRequest, protocol::OffsetForLeaderEpochResponse>(
        ctx_.network, entry.first, std::move(req),
        [this, post, positions](Result<Reply<protocol::OffsetForLeaderEpochResponse>> r) {
          post([this, positions, r = std::move(r)] {
            const int64_t retry_at = ctx_.now() + ctx_.config.retry_backoff_ms;
            auto retry_all = [&] {
              for (const auto& [tp, pos] : *positions) {
                if (PartitionState* st = ctx_.subscriptions.state(tp)) st->next_retry_ms = retry_at;
              }
            };
            if (!r) {
              ctx_.metadata.request_update();
              retry_all();
              return;
            }
            for (const auto& t : r->message.topics) {
              for (const auto& p : t.partitions) {
                const TopicPartition tp(t.topic, p.partition);
                auto it = positions->find(tp);
                PartitionState* st = ctx_.subscriptions.state(tp);
                if (it == positions->end() || st == nullptr) continue;
                const int16_t code = protocol::to_int(p.error_code);
                if (code != 0) {
                  if (is_stale_leader_error(code)) ctx_.metadata.request_update();
                  st->next_retry_ms = retry_at;
                  continue;
                }
                Status s = ctx_.subscriptions.maybe_complete_validation(tp, it->second, p.leader_epoch, p.end_offset);
                if (!s.is_ok() && error_.is_ok()) error_ = s;
              }
            }
            ctx_.notify_progress();
          });
        },
        opts);
  }
}

Status OffsetRequests::take_error() {
  Status e = std::move(error_);
  error_ = Status::ok();
  return e;
}

}  // namespace spool::client
