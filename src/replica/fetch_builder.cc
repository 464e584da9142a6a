#include "replica/fetch_builder.h"

#include <algorithm>

namespace spool::replica {

bool fsynced_to_log_end(const FollowerPartition& p) {
  return !p.durable_writes || p.synced_offset >= p.fetch_offset;
}

bool ready_to_fetch(const FollowerPartition& p, int64_t now_ms) {
  return p.phase == FetchPhase::kFetching && now_ms >= p.backoff_until_ms && fsynced_to_log_end(p);
}

protocol::FetchRequest build_replica_fetch(const ReplicaFetchSettings& s, int16_t version,
                                           const std::vector<FollowerPartition>& partitions, int64_t now_ms) {
  protocol::FetchRequest req;
  if (version >= 15) {
    req.replica_state.replica_id = s.replica_id;
    req.replica_state.replica_epoch = s.broker_epoch;
  } else {
    req.replica_id = s.replica_id;
  }
  req.max_wait_ms = s.max_wait_ms;
  req.min_bytes = s.min_bytes;
  req.max_bytes = s.max_bytes;
  req.isolation_level = 0;
  req.session_id = 0;
  req.session_epoch = -1;
  for (const auto& p : partitions) {
    if (!ready_to_fetch(p, now_ms)) continue;
    auto same_topic = [&](const protocol::FetchRequest::FetchTopic& t) {
      return version >= 13 ? t.topic_id == p.topic_id : t.topic == p.tp.topic;
    };
    auto it = std::find_if(req.topics.begin(), req.topics.end(), same_topic);
    if (it == req.topics.end()) {
      protocol::FetchRequest::FetchTopic t;
      t.topic = p.tp.topic;
      t.topic_id = p.topic_id;
      req.topics.push_back(std::move(t));
      it = std::prev(req.topics.end());
    }
    protocol::FetchRequest::FetchPartition fp;
    fp.partition = p.tp.partition;
    fp.current_leader_epoch = p.current_leader_epoch;
    fp.fetch_offset = p.fetch_offset;
    fp.last_fetched_epoch = p.last_fetched_epoch.value_or(-1);
    fp.log_start_offset = p.log_start_offset;
    fp.partition_max_bytes = s.partition_max_bytes;
    it->partitions.push_back(fp);
  }
  return req;
}

int32_t replica_id_of(const protocol::FetchRequest& request, int16_t version) {
  return version >= 15 ? request.replica_state.replica_id : request.replica_id;
}

std::optional<int64_t> follower_high_watermark(const FollowerPartition& p, int64_t log_end_offset,
                                               int64_t leader_high_watermark, bool diverging_epoch) {
  if (diverging_epoch || p.phase != FetchPhase::kFetching) return std::nullopt;
  return std::max(p.log_start_offset, std::min(leader_high_watermark, log_end_offset));
}

}  // namespace spool::replica
