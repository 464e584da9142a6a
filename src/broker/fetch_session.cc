#include "broker/fetch_session.h"

#include <spdlog/spdlog.h>

#include <climits>
#include <functional>

#include "broker/fetch_session_cache.h"

namespace spool::broker {

int32_t next_fetch_epoch(int32_t epoch) {
  if (epoch < 0) return kFinalFetchEpoch;
  if (epoch == INT32_MAX) return 1;
  return epoch + 1;
}

bool CachedPartition::must_respond(const FetchPartitionResult& r, bool update) {
  bool must = r.records.has_value() && !r.records->empty();
  if (high_watermark != r.high_watermark) {
    must = true;
    if (update) high_watermark = r.high_watermark;
  }
  if (local_log_start_offset != r.log_start_offset) {
    must = true;
    if (update) local_log_start_offset = r.log_start_offset;
  }
  if (r.preferred_read_replica >= 0) must = true;
  if (r.error_code != protocol::ErrorCode::kNone) {
    // Forget the high watermark so the partition is sent again once the error clears.
    if (update) high_watermark = -1;
    must = true;
  }
  return must;
}

size_t FetchSession::KeyHash::operator()(const Key& k) const {
  return std::hash<std::string>()(k.first) * 31 + std::hash<int32_t>()(k.second);
}

CachedPartition* FetchSession::find(const std::string& topic, int32_t partition) {
  auto it = index_.find(Key(topic, partition));
  return it == index_.end() ? nullptr : &*it->second;
}

void FetchSession::upsert(const FetchPartitionWanted& w) {
  if (CachedPartition* p = find(w.topic, w.partition)) {
    p->wanted = w;
    return;
  }
  order_.push_back(CachedPartition{w});
  index_.emplace(Key(w.topic, w.partition), std::prev(order_.end()));
}

bool FetchSession::remove(const std::string& topic, int32_t partition) {
  auto it = index_.find(Key(topic, partition));
  if (it == index_.end()) return false;
  order_.erase(it->second);
  index_.erase(it);
  return true;
}

void FetchSession::move_to_back(const std::string& topic, int32_t partition) {
  auto it = index_.find(Key(topic, partition));
  if (it != index_.end()) order_.splice(order_.end(), order_, it->second);
}

protocol::FetchResponse build_fetch_response(const std::vector<FetchPartitionWanted>& wanted,
                                             std::vector<FetchPartitionResult>& results,
                                             const std::vector<bool>* include) {
  protocol::FetchResponse resp;
  for (size_t i = 0; i < wanted.size() && i < results.size(); ++i) {
    if (include != nullptr && !(*include)[i]) continue;
    if (resp.responses.empty() || resp.responses.back().topic != wanted[i].topic) {
      resp.responses.emplace_back().topic = wanted[i].topic;
    }
    auto& pr = resp.responses.back().partitions.emplace_back(std::move(results[i]));
    pr.partition_index = wanted[i].partition;
  }
  return resp;
}

protocol::FetchResponse FetchContext::make_response(std::vector<FetchPartitionResult> results) {
  if (error_) {
    protocol::FetchResponse resp;
    resp.error_code = *error_;
    resp.session_id = kInvalidFetchSessionId;
    return resp;
  }
  if (results.size() != partitions_.size()) {
    // A caller bug, not client input: answer with an error rather than guess.
    spdlog::error("fetch session: {} results for {} partitions", results.size(), partitions_.size());
    protocol::FetchResponse resp;
    resp.error_code = protocol::ErrorCode::kUnknownServerError;
    return resp;
  }
  switch (kind_) {
    case Kind::kSessionless: {
      auto resp = build_fetch_response(partitions_, results);
      resp.session_id = kInvalidFetchSessionId;
      return resp;
    }
    case Kind::kFull: {
      int32_t id = cache_->maybe_create_session(privileged_, partitions_, results);
      auto resp = build_fetch_response(partitions_, results);
      resp.session_id = id;
      return resp;
    }
    case Kind::kIncremental:
      return cache_->complete_incremental(*this, results);
    case Kind::kSessionError:
      break;
  }
  return {};
}

}  // namespace spool::broker
