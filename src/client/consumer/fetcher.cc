#include "client/consumer/fetcher.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "protocol/error_code.h"
#include "protocol/fetch_request.h"

namespace spool::client {

using protocol::ErrorCode;

const FetchSessionHandler* Fetcher::session(int32_t node_id) const {
  auto it = sessions_.find(node_id);
  return it == sessions_.end() ? nullptr : &it->second;
}

int Fetcher::send_fetches() {
  const int64_t now = ctx_.now();
  const ConsumerConfig& cfg = ctx_.config;
  std::map<int32_t, std::pair<Node, std::map<TopicPartition, PartitionFetchData>>> per_node;
  for (const auto& [tp, st] : ctx_.subscriptions.partitions()) {
    if (!ctx_.subscriptions.is_fetchable(tp) || buffer_.count(tp) > 0) continue;
    auto leader = ctx_.leader(tp);
    if (!leader) {
      ctx_.metadata.request_update();
      continue;
    }
    const int32_t id = leader->node.id;
    if (in_flight_.count(id) > 0) continue;
    if (auto b = backoff_until_.find(id); b != backoff_until_.end() && now < b->second) continue;
    PartitionFetchData d;
    d.fetch_offset = st.position->offset;
    d.current_leader_epoch = st.position->leader_epoch >= 0 ? st.position->leader_epoch : leader->epoch;
    d.last_fetched_epoch = st.position->offset_epoch;
    d.max_bytes = cfg.max_partition_fetch_bytes;
    auto& entry = per_node[id];
    entry.first = leader->node;
    entry.second.emplace(tp, d);
  }
  int sent = 0;
  for (auto& [id, entry] : per_node) {
    auto [it, added] = sessions_.try_emplace(id, id);
    FetchSessionRequest s = it->second.build(entry.second);
    protocol::FetchRequest req;
    req.replica_id = -1;
    req.max_wait_ms = cfg.fetch_max_wait_ms;
    req.min_bytes = cfg.fetch_min_bytes;
    req.max_bytes = cfg.fetch_max_bytes;
    req.isolation_level = static_cast<int8_t>(cfg.isolation_level);
    req.session_id = s.session_id;
    req.session_epoch = s.epoch;
    req.rack_id = cfg.client_rack;
    for (const auto& [tp, d] : s.to_send) {
      if (req.topics.empty() || req.topics.back().topic != tp.topic) {
        req.topics.emplace_back();
        req.topics.back().topic = tp.topic;
      }
      protocol::FetchRequest::FetchTopic::FetchPartition fp;
      fp.partition = tp.partition;
      fp.current_leader_epoch = d.current_leader_epoch;
      fp.fetch_offset = d.fetch_offset;
      fp.last_fetched_epoch = d.last_fetched_epoch;
      fp.log_start_offset = d.log_start_offset;
      fp.partition_max_bytes = d.max_bytes;
      req.topics.back().partitions.push_back(fp);
    }
    for (const TopicPartition& tp : s.to_forget) {
      if (req.forgotten_topics_data.empty() || req.forgotten_topics_data.back().topic != tp.topic) {
        req.forgotten_topics_data.emplace_back();
        req.forgotten_topics_data.back().topic = tp.topic;
      }
      req.forgotten_topics_data.back().partitions.push_back(tp.partition);
    }
    in_flight_.insert(id);
    ++sent;
    SendOptions opts;
    opts.min_version = kMinFetchVersion;
    opts.max_version = kMaxFetchVersion;
    opts.timeout_ms = cfg.request_timeout_ms + cfg.fetch_max_wait_ms;
    auto requested = std::make_shared<std::map<TopicPartition, PartitionFetchData>>(std::move(entry.second));
    const Node node = entry.first;
    auto post = ctx_.post;
    send_request<protocol::FetchRequest, protocol::FetchResponse>(
        ctx_.network, node, std::move(req),
        [this, post, node, requested](Result<Reply<protocol::FetchResponse>> r) {
          post([this, node, requested, r = std::move(r)]() mutable { on_response(node, *requested, r); });
        },
        opts);
  }
  return sent;
}

void Fetcher::on_response(const Node& node, const std::map<TopicPartition, PartitionFetchData>& requested,
                          Result<Reply<protocol::FetchResponse>>& reply) {
  in_flight_.erase(node.id);
  FetchSessionHandler& session = sessions_.try_emplace(node.id, node.id).first->second;
  if (!reply) {
    spdlog::debug("consumer: fetch from node {} failed: {}", node.id, reply.status().message());
    session.handle_error();
    backoff_until_[node.id] = ctx_.now() + ctx_.config.retry_backoff_ms;
    ctx_.metadata.request_update();
    return;
  }
  const protocol::FetchResponse& resp = reply->message;
  if (!session.handle_response(resp)) {
    if (resp.error_code != ErrorCode::kNone && resp.error_code != ErrorCode::kFetchSessionIdNotFound &&
        resp.error_code != ErrorCode::kInvalidFetchSessionEpoch) {
      backoff_until_[node.id] = ctx_.now() + ctx_.config.retry_backoff_ms;
    }
    return;
  }
  for (const auto& t : resp.responses) {
    for (const auto& p : t.partitions) {
      const TopicPartition tp(t.topic, p.partition_index);
      auto it = requested.find(tp);
      if (it == requested.end()) continue;
      on_partition(tp, it->second, p);
    }
  }
  ctx_.notify_progress();
}

void Fetcher::on_partition(const TopicPartition& tp, const PartitionFetchData& requested,
                           const protocol::FetchResponse::FetchableTopicResponse::PartitionData& data) {
  PartitionState* st = ctx_.subscriptions.state(tp);
  if (st == nullptr || !st->position || st->position->offset != requested.fetch_offset ||
      st->state != FetchState::kFetching || buffer_.count(tp) > 0) {
    return;  // revoked, seeked or reset meanwhile
  }
  switch (data.error_code) {
    case ErrorCode::kNone: {
      st->high_watermark = data.high_watermark;
      if (data.log_start_offset >= 0) st->log_start_offset = data.log_start_offset;
      if (data.last_stable_offset >= 0) st->last_stable_offset = data.last_stable_offset;
      if (data.diverging_epoch.epoch >= 0) {
        spdlog::info("consumer: truncation detected for {} at offset {} (diverging epoch {} ends at {})",
                     tp.to_string(), requested.fetch_offset, data.diverging_epoch.epoch,
                     data.diverging_epoch.end_offset);
        set_error(ctx_.subscriptions.maybe_complete_validation(tp, *st->position, data.diverging_epoch.epoch,
                                                               data.diverging_epoch.end_offset));
        return;
      }
      std::vector<AbortedTransaction> aborted;
      if (data.aborted_transactions) {
        for (const auto& a : *data.aborted_transactions) aborted.push_back({a.producer_id, a.first_offset});
      }
      ByteSpan bytes = data.records ? data.records->bytes() : ByteSpan();
      FetchedRecords parsed = parse_fetched_records(tp.topic, tp.partition, bytes, requested.fetch_offset,
                                                    ctx_.config.isolation_level, std::move(aborted),
                                                    ctx_.config.check_crcs);
      if (!parsed.error.is_ok() && parsed.records.empty()) {
        set_error(parsed.error);
        return;
      }
      if (parsed.records.empty() && parsed.next_fetch_offset == requested.fetch_offset) return;
      Buffered b;
      b.fetched_at = requested.fetch_offset;
      b.records.assign(std::make_move_iterator(parsed.records.begin()), std::make_move_iterator(parsed.records.end()));
      b.next_fetch_offset = parsed.next_fetch_offset;
      b.last_epoch = parsed.last_epoch;
      buffer_[tp] = std::move(b);
      order_.push_back(tp);
      return;
    }
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kReplicaNotAvailable:
    case ErrorCode::kKafkaStorageError:
    case ErrorCode::kFencedLeaderEpoch:
    case ErrorCode::kOffsetNotAvailable:
    case ErrorCode::kUnknownLeaderEpoch:
    case ErrorCode::kUnknownTopicOrPartition:
    case ErrorCode::kUnknownTopicId:
    case ErrorCode::kInconsistentTopicId:
      spdlog::debug("consumer: fetch of {}: {}; refreshing metadata", tp.to_string(),
                    protocol::error_name(data.error_code));
      ctx_.metadata.request_update();
      return;
    case ErrorCode::kOffsetOutOfRange:
      if (ctx_.subscriptions.has_default_reset()) {
        spdlog::info("consumer: fetch position {} is out of range for partition {}, resetting offset",
                     requested.fetch_offset, tp.to_string());
        ctx_.subscriptions.request_reset(tp, ctx_.subscriptions.default_reset());
      } else {
        set_error(Status::error("Offsets out of range with no configured reset policy for partitions: {" +
                                    tp.to_string() + "=" + std::to_string(requested.fetch_offset) + "}",
                                protocol::to_int(ErrorCode::kOffsetOutOfRange)));
      }
      return;
    case ErrorCode::kUnknownServerError:
      spdlog::warn("consumer: unknown server error while fetching offset {} for {}", requested.fetch_offset,
                   tp.to_string());
      return;
    default:
      set_error(Status::error("Error while fetching offset " + std::to_string(requested.fetch_offset) +
                                  " of " + tp.to_string() + ": " + std::string(protocol::error_name(data.error_code)),
                              protocol::to_int(data.error_code)));
      return;
  }
}

void Fetcher::set_error(Status s) {
  if (!s.is_ok() && error_.is_ok()) {
    error_ = std::move(s);
    ctx_.notify_progress();
  }
}

bool Fetcher::has_buffered() const {
  for (const auto& [tp, b] : buffer_) {
    const PartitionState* st = ctx_.subscriptions.state(tp);
    if (st != nullptr && !st->paused) return true;
  }
  return false;
}

void Fetcher::clear_buffered(const TopicPartition& tp) {
  buffer_.erase(tp);
  order_.erase(std::remove(order_.begin(), order_.end(), tp), order_.end());
}

void Fetcher::clear_all() {
  buffer_.clear();
  order_.clear();
}

Result<std::vector<ConsumerRecord>> Fetcher::drain(int32_t max_records) {
  if (!error_.is_ok()) {
    Status e = std::move(error_);
    error_ = Status::ok();
    return e;
  }
  std::vector<ConsumerRecord> out;
  std::deque<TopicPartition> kept;
  while (!order_.empty()) {
    const TopicPartition tp = order_.front();
    order_.pop_front();
    auto it = buffer_.find(tp);
    if (it == buffer_.end()) continue;
    Buffered& b = it->second;
    PartitionState* st = ctx_.subscriptions.state(tp);
    if (st == nullptr || !st->position || st->position->offset != b.fetched_at ||
        st->state != FetchState::kFetching) {
      buffer_.erase(it);  // the position moved: the data is stale
      continue;
    }
    if (st->paused || static_cast<int32_t>(out.size()) >= max_records) {
      kept.push_back(tp);
      continue;
    }
    while (!b.records.empty() && static_cast<int32_t>(out.size()) < max_records) {
      ConsumerRecord r = std::move(b.records.front());
      b.records.pop_front();
      st->position->offset = r.offset + 1;
      st->position->offset_epoch = r.leader_epoch;
      out.push_back(std::move(r));
    }
    if (b.records.empty()) {
      st->position->offset = b.next_fetch_offset;
      if (b.last_epoch >= 0) st->position->offset_epoch = b.last_epoch;
      buffer_.erase(it);
    } else {
      b.fetched_at = st->position->offset;
      kept.push_back(tp);
    }
  }
  order_ = std::move(kept);
  return out;
}

}  // namespace spool::client
