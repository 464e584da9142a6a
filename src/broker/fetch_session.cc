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
  if (r.diverging_epoch.epoch >= 0) must = true;  // always sent, so the fetcher truncates
  return must;
}

size_t FetchSession::KeyHash::operator()(const Key& k) const {
  return std::hash<std::string>()(k.first) * 31 + std::hash<int32_t>()(k.second);
}

FetchSession::Key FetchSession::key(const std::string& topic, const TopicId& id, int32_t partition) const {
  if (uses_topic_ids_) return Key(std::string(reinterpret_cast<const char*>(id.data()), id.size()), partition);
  return Key(topic, partition);
}

CachedPartition* FetchSession::find(const std::string& topic, const TopicId& id, int32_t partition) {
  auto it = index_.find(key(topic, id, partition));
  return it == index_.end() ? nullptr : &*it->second;
}

void FetchSession::upsert(const FetchPartitionWanted& w) {
  if (CachedPartition* p = find(w)) {
    std::string name = std::move(p->wanted.topic);
    p->wanted = w;
    if (uses_topic_ids_ && !name.empty()) p->wanted.topic = std::move(name);
    return;
  }
  order_.push_back(CachedPartition{w});
  index_.emplace(key(w.topic, w.topic_id, w.partition), std::prev(order_.end()));
}

bool FetchSession::remove(const std::string& topic, const TopicId& id, int32_t partition) {
  auto it = index_.find(key(topic, id, partition));
  if (it == index_.end()) return false;
  order_.erase(it->second);
  index_.erase(it);
  return true;
}

void FetchSession::move_to_back(const FetchPartitionWanted& w) {
  auto it = index_.find(key(w.topic, w.topic_id, w.partition));
  if (it != index_.end()) order_.splice(order_.end(), order_, it->second);
}

protocol::FetchResponse build_fetch_response(const std::vector<FetchPartitionWanted>& wanted,
                                             std::vector<FetchPartitionResult>& results,
                                             const std::vector<bool>* include) {
  protocol::FetchResponse resp;
  for (size_t i = 0; i < wanted.size() && i < results.size(); ++i) {
    if (include != nullptr && !(*include)[i]) continue;
    if (resp.responses.empty() || resp.responses.back().topic != wanted[i].topic ||
        resp.responses.back().topic_id != wanted[i].topic_id) {
      auto& t = resp.responses.emplace_back();
      t.topic = wanted[i].topic;
      t.topic_id = wanted[i].topic_id;
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
      int32_t id = cache_->maybe_create_session(privileged_, uses_topic_ids_, partitions_, results);
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

protocol::FetchResponse FetchContext::throttled_response() const {
  protocol::FetchResponse resp;
  if (error_) resp.error_code = *error_;
  resp.session_id = kind_ == Kind::kIncremental && !error_ ? session_id() : kInvalidFetchSessionId;
  return resp;
}

}  // namespace spool::broker
