// LeaderEndpoint: how a fetcher thread talks to a partition leader (Kafka's
// LeaderEndPoint). A port: NetworkLeaderEndpoint sends over
// client::NetworkClient; tests give a fake leader.
//
// Contract: every call blocks the calling fetcher thread until the answer or
// the timeout (replica.socket.timeout.ms) and never throw. A failed call is
// a Status (network error, timeout, undecodable answer); per-partition
// errors are in the answer. Thread-safe: each fetcher thread calls it.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "client/network_client.h"
#include "protocol/fetch_request.h"
#include "protocol/fetch_response.h"
#include "util/status.h"
#include "util/topic_partition.h"

namespace spool::replica {

struct FetchAnswer {
  int16_t version = 0;
  protocol::FetchResponse response;
  std::shared_ptr<void> keep_alive;  // the frame the records view into
};

// The leader's (log start, log end) of a partition (ListOffsets earliest/latest).
struct LeaderOffsets {
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
};

// One partition of an OffsetForLeaderEpoch request: where `epoch` ends on
// the leader, fenced by the follower's `current_leader_epoch`.
struct EpochQuery {
  TopicPartition tp;
  int32_t current_leader_epoch = -1;
  int32_t epoch = -1;
};

// Its answer: the error (NONE, FENCED_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER...)
// and the leader's (epoch, end offset), -1/-1 when unknown.
struct EpochAnswer {
  TopicPartition tp;
  protocol::ErrorCode error = protocol::ErrorCode::kNone;
  int32_t epoch = -1;
  int64_t end_offset = -1;
};

class LeaderEndpoint {
 public:
  virtual ~LeaderEndpoint() = default;
  // The request carries the replica id both ways (top level and
  // ReplicaState), so any negotiated version >= 12 reads it.
  virtual Result<FetchAnswer> fetch(const client::Node& leader, const protocol::FetchRequest& request) = 0;
  virtual Result<LeaderOffsets> leader_offsets(const client::Node& leader, const TopicPartition& tp,
                                               int32_t current_leader_epoch) = 0;
  // OffsetForLeaderEpoch (v3+, with the replica id) for every query at
  // once; the answers list the partitions the leader answered for.
  virtual Result<std::vector<EpochAnswer>> epoch_end_offsets(const client::Node& leader,
                                                             const std::vector<EpochQuery>& queries) = 0;
};

// Over the broker's NetworkClient (which must outlive it).
class NetworkLeaderEndpoint : public LeaderEndpoint {
 public:
  NetworkLeaderEndpoint(client::NetworkClient& client, int32_t replica_id, int32_t timeout_ms)
      : client_(client), replica_id_(replica_id), timeout_ms_(timeout_ms) {}
  Result<FetchAnswer> fetch(const client::Node& leader, const protocol::FetchRequest& request) override;
  Result<LeaderOffsets> leader_offsets(const client::Node& leader, const TopicPartition& tp,
                                       int32_t current_leader_epoch) override;
  Result<std::vector<EpochAnswer>> epoch_end_offsets(const client::Node& leader,
                                                     const std::vector<EpochQuery>& queries) override;

 private:
  client::NetworkClient& client_;
  int32_t replica_id_;
  int32_t timeout_ms_;
};

}  // namespace spool::replica
