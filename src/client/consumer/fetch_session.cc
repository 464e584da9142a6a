#include "client/consumer/fetch_session.h"

#include <spdlog/spdlog.h>

#include <set>

#include "protocol/error_code.h"

namespace spool::client {

using protocol::ErrorCode;

FetchSessionRequest FetchSessionHandler::build(const std::map<TopicPartition, PartitionFetchData>& next) {
  FetchSessionRequest req;
  req.session_id = session_id_;
  req.epoch = epoch_;
  req.full = full_next();
  if (req.full) {
    session_ = next;
    req.to_send = next;
    return req;
  }
  for (const auto& [tp, data] : session_) {
    if (next.count(tp) == 0) req.to_forget.push_back(tp);
  }
  for (const auto& [tp, data] : next) {
    auto it = session_.find(tp);
    if (it == session_.end() || !(it->second == data)) req.to_send.emplace(tp, data);
  }
  session_ = next;
  return req;
}

bool FetchSessionHandler::handle_response(const protocol::FetchResponse& response) {
  if (response.error_code != ErrorCode::kNone) {
    spdlog::info("consumer: node {} could not process the fetch request with session {} epoch {}: {}", node_id_,
                 session_id_, epoch_, protocol::error_name(response.error_code));
    if (response.error_code == ErrorCode::kFetchSessionIdNotFound) {
      start_over();
    } else {
      close_existing();
    }
    return false;
  }
  std::set<TopicPartition> answered;
  for (const auto& t : response.responses) {
    for (const auto& p : t.partitions) answered.emplace(t.topic, p.partition_index);
  }
  bool extra = false;
  for (const TopicPartition& tp : answered) {
    if (session_.count(tp) == 0) extra = true;
  }
  if (full_next()) {
    if (answered.empty() && response.throttle_time_ms > 0) {
      start_over();  // KIP-219: a throttled full fetch comes back empty
      return false;
    }
    if (extra || answered.size() != session_.size()) {
      spdlog::info("consumer: node {}: full fetch response does not match the requested partitions", node_id_);
      start_over();
      return false;
    }
    if (response.session_id == kInvalidSessionId) {
      start_over();
      return true;
    }
    session_id_ = response.session_id;
    epoch_ = 1;
    return true;
  }
  if (extra) {
    spdlog::info("consumer: node {}: incremental fetch response names partitions outside session {}", node_id_,
                 session_id_);
    close_existing();
    return false;
  }
  if (response.session_id == kInvalidSessionId) {
    start_over();  // the broker closed the session
    return true;
  }
  epoch_ = epoch_ == INT32_MAX ? 1 : epoch_ + 1;
  return true;
}

void FetchSessionHandler::handle_error() { close_existing(); }

}  // namespace spool::client
