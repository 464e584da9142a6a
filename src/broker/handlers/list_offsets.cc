// ListOffsets v1-11, per partition:
// - EARLIEST (-2): the log start offset; LATEST (-1): the high watermark for
//   consumers (ReplicaId -1) reading uncommitted, the last stable offset for
//   read_committed (IsolationLevel 1), the log end offset for anyone else
//   (followers, -2 debug); a timestamp >= 0: the first record whose
//   timestamp is >= it and below that same bound, else -1/-1 (Kafka's
//   fetchOffsetForTimestamp).
// - v4+: CurrentLeaderEpoch (-1 = unchecked) older than the partition's is
//   FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH.
// - v7+ MAX_TIMESTAMP (-3, KIP-734): the first record carrying the largest
//   timestamp (inside its batch), filtered by the same bound; none: -1/-1.
// - v8+ EARLIEST_LOCAL (-4, KIP-405): without tiered storage the local log
//   starts at the log start offset, so the same answer as EARLIEST.
// - v9+ LATEST_TIERED (-5, KIP-1005) and v11+ EARLIEST_PENDING_UPLOAD (-6,
//   KIP-1023): nothing is tiered, so NONE with -1/-1 and epoch -1 (Kafka's
//   answer without remote storage).
// - v10+ TimeoutMs bounds remote lookups (KIP-1075); every lookup here is
//   local and answered at once.
// - A special timestamp the request's version does not know yet, or any
//   other negative one: UNSUPPORTED_VERSION; a partition listed twice:
//   answered once, with INVALID_REQUEST (as Kafka).
// The leader epoch answered is the partition's: on one node it never
// changes, so it is also the epoch of every batch Kafka would report.
// With an authorizer a topic needs DESCRIBE (Kafka's check), else its
// partitions answer TOPIC_AUTHORIZATION_FAILED.
#include <map>
#include <set>
#include <utility>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "protocol/error_code.h"
#include "protocol/list_offsets_request.h"
#include "protocol/list_offsets_response.h"
#include "util/topic_partition.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {
constexpr int64_t kLatest = -1;
constexpr int64_t kEarliest = -2;
constexpr int64_t kMaxTimestamp = -3;
constexpr int64_t kEarliestLocal = -4;
constexpr int64_t kLatestTiered = -5;
constexpr int64_t kEarliestPendingUpload = -6;
constexpr int8_t kReadCommitted = 1;
constexpr int32_t kConsumerReplicaId = -1;

// The first version that knows a special (negative) timestamp; 0 = never.
int16_t first_version_for(int64_t ts) {
  switch (ts) {
    case kLatest:
    case kEarliest: return 1;
    case kMaxTimestamp: return 7;
    case kEarliestLocal: return 8;
    case kLatestTiered: return 9;
    case kEarliestPendingUpload: return 11;
    default: return 0;
  }
}

using PartitionResponse = protocol::ListOffsetsResponse::ListOffsetsPartitionResponse;

void answer(Partition& partition, const protocol::ListOffsetsRequest& req, int64_t ts, int32_t current_epoch,
            int16_t v, PartitionResponse& pr) {
  const int32_t epoch = partition.leader_epoch();
  if (current_epoch != -1 && current_epoch != epoch) {
    pr.error_code = current_epoch < epoch ? ErrorCode::kFencedLeaderEpoch : ErrorCode::kUnknownLeaderEpoch;
    return;
  }
  if (ts < 0 && (first_version_for(ts) == 0 || v < first_version_for(ts))) {
    pr.error_code = ErrorCode::kUnsupportedVersion;
    return;
  }
  pr.error_code = ErrorCode::kNone;
  int64_t fetchable = partition.log_end_offset();
  if (req.replica_id == kConsumerReplicaId)
    fetchable = req.isolation_level == kReadCommitted ? partition.last_stable_offset() : partition.high_watermark();
  auto found = [&](std::optional<std::pair<int64_t, int64_t>> hit) {
    // Only offsets a reader of that isolation level may read count.
    if (hit && hit->first < fetchable) {
      pr.offset = hit->first;
      pr.timestamp = hit->second;
      pr.leader_epoch = epoch;
    }
  };
  switch (ts) {
    case kEarliest:
    case kEarliestLocal:
      pr.offset = partition.log_start_offset();
      pr.leader_epoch = epoch;
      return;
    case kLatest:
      pr.offset = fetchable;
      pr.leader_epoch = epoch;
      return;
    case kMaxTimestamp: return found(partition.max_timestamp_offset());
    case kLatestTiered:
    case kEarliestPendingUpload: return;  // nothing tiered: -1/-1, epoch -1
    default: return found(partition.offset_for_timestamp(ts));
  }
}

}  // namespace

void handle_list_offsets(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::ListOffsetsRequest req;
  if (!decode_or_close(ctx, body, req, "ListOffsets")) return;
  const int16_t v = ctx.version();
  std::map<TopicPartition, int> seen;
  for (const auto& t : req.topics)
    for (const auto& p : t.partitions) ++seen[{t.name, p.partition_index}];

  protocol::ListOffsetsResponse resp;
  std::set<TopicPartition> answered;
  for (const auto& t : req.topics) {
    auto& tr = resp.topics.emplace_back();
    tr.name = t.name;
    const bool permitted = topic_allowed(b, ctx, security::AclOperation::kDescribe, t.name);
    for (const auto& p : t.partitions) {
      // A partition listed twice is answered once, INVALID_REQUEST (as Kafka).
      if (!answered.insert({t.name, p.partition_index}).second) continue;
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = p.partition_index;
      pr.timestamp = -1;
      pr.offset = -1;
      pr.leader_epoch = -1;
      if (seen[{t.name, p.partition_index}] > 1) {
        pr.error_code = ErrorCode::kInvalidRequest;
        continue;
      }
      if (!permitted) {
        pr.error_code = ErrorCode::kTopicAuthorizationFailed;
        continue;
      }
      auto partition = b.replicas.partition(t.name, p.partition_index);
      if (!partition) {
        pr.error_code = ErrorCode::kUnknownTopicOrPartition;
        continue;
      }
      answer(*partition, req, p.timestamp, v >= 4 ? p.current_leader_epoch : -1, v, pr);
    }
    if (tr.partitions.empty() && !t.partitions.empty()) resp.topics.pop_back();  // all repeats
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
