#include "replica/leader_endpoint.h"

#include <chrono>
#include <future>

#include "protocol/list_offsets_request.h"
#include "protocol/list_offsets_response.h"
#include "protocol/offset_for_leader_epoch_request.h"
#include "protocol/offset_for_leader_epoch_response.h"

namespace spool::replica {

namespace {
template <class Req, class Resp>
Result<client::Reply<Resp>> call(client::NetworkClient& client, const client::Node& node, Req req, int16_t min_version,
                                 int32_t timeout_ms) {
  auto promise = std::make_shared<std::promise<Result<client::Reply<Resp>>>>();
  auto future = promise->get_future();
  client::SendOptions so;
  so.min_version = min_version;
  so.timeout_ms = timeout_ms;
  client.send<Req, Resp>(
      node, std::move(req), [promise](Result<client::Reply<Resp>> r) { promise->set_value(std::move(r)); }, so);
  // The client's own deadline answers first; this bound only guards a lost callback.
  if (future.wait_for(std::chrono::milliseconds(timeout_ms + 5000)) != std::future_status::ready)
    return Status::error("no answer from broker " + std::to_string(node.id), 7);
  return future.get();
}
}  // namespace

Result<FetchAnswer> NetworkLeaderEndpoint::fetch(const client::Node& leader, const protocol::FetchRequest& request) {
  // Fetch v12+: LastFetchedEpoch and DivergingEpoch.
  auto r = call<protocol::FetchRequest, protocol::FetchResponse>(client_, leader, request, 12,
                                                                 timeout_ms_ + request.max_wait_ms);
  if (!r) return r.status();
  FetchAnswer a;
  a.version = r->version;
  a.response = std::move(r->message);
  a.keep_alive = r->frame;
  return a;
}

Result<LeaderOffsets> NetworkLeaderEndpoint::leader_offsets(const client::Node& leader, const TopicPartition& tp,
                                                            int32_t current_leader_epoch) {
  LeaderOffsets out;
  for (int64_t ts : {int64_t{-2}, int64_t{-1}}) {
    protocol::ListOffsetsRequest req;
    req.replica_id = replica_id_;
    auto& t = req.topics.emplace_back();
    t.name = tp.topic;
    auto& p = t.partitions.emplace_back();
    p.partition_index = tp.partition;
    p.current_leader_epoch = current_leader_epoch;
    p.timestamp = ts;
    auto r = call<protocol::ListOffsetsRequest, protocol::ListOffsetsResponse>(client_, leader, req, 1, timeout_ms_);
    if (!r) return r.status();
    if (r->message.topics.empty() || r->message.topics[0].partitions.empty())
      return Status::error("ListOffsets answer without " + tp.to_string(), 2);
    const auto& pr = r->message.topics[0].partitions[0];
    if (pr.error_code != protocol::ErrorCode::kNone)
      return Status::error("ListOffsets " + tp.to_string() + " error " + std::to_string(static_cast<int>(pr.error_code)),
                           static_cast<int16_t>(pr.error_code));
    (ts == -2 ? out.log_start_offset : out.log_end_offset) = pr.offset;
  }
  return out;
}

Result<std::vector<EpochAnswer>> NetworkLeaderEndpoint::epoch_end_offsets(const client::Node& leader,
                                                                          const std::vector<EpochQuery>& queries) {
  protocol::OffsetForLeaderEpochRequest req;
  req.replica_id = replica_id_;
  for (const auto& q : queries) {
    if (req.topics.empty() || req.topics.back().topic != q.tp.topic) req.topics.emplace_back().topic = q.tp.topic;
    auto& p = req.topics.back().partitions.emplace_back();
    p.partition = q.tp.partition;
    p.current_leader_epoch = q.current_leader_epoch;
    p.leader_epoch = q.epoch;
  }
  // v3+: the replica id tells the leader a follower asks.
  auto r = call<protocol::OffsetForLeaderEpochRequest, protocol::OffsetForLeaderEpochResponse>(client_, leader, req, 3,
                                                                                                timeout_ms_);
  if (!r) return r.status();
  std::vector<EpochAnswer> out;
  for (const auto& t : r->message.topics) {
    for (const auto& p : t.partitions) {
      out.push_back(EpochAnswer{TopicPartition{t.topic, p.partition}, p.error_code, p.leader_epoch, p.end_offset});
    }
  }
  return out;
}

}  // namespace spool::replica
