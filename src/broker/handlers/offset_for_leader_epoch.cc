// OffsetForLeaderEpoch v2-4 (KIP-320 for consumers, KIP-101 for followers):
// per partition, the end offset of the requested leader epoch from the
// partition's leader-epoch cache (Kafka's endOffsetFor):
// - the current (latest) epoch ends at the log end offset;
// - an older epoch ends where the next known epoch starts, answered with the
//   largest known epoch <= it; below the first known epoch: the requested
//   epoch and the first epoch's start offset;
// - an epoch newer than any known, or -1: -1/-1 with NONE.
// An empty partition has no cached epoch yet; Kafka caches the leader's
// epoch at the log end when it becomes leader, so the current epoch is
// answered (epoch, log end offset) there too.
// CurrentLeaderEpoch (v2+, -1 = unchecked) older than the partition's:
// FENCED_LEADER_EPOCH; newer: UNKNOWN_LEADER_EPOCH; then a replica that is
// not the leader (cluster mode): NOT_LEADER_OR_FOLLOWER; unknown topic or
// partition: UNKNOWN_TOPIC_OR_PARTITION. The lookup itself is
// Partition::last_offset_for_leader_epoch. ReplicaId (v3+; -1 consumer, -2
// debug, >= 0 a follower) changes nothing: as Kafka, the answer is not
// bounded by the high watermark for anyone.
// With an authorizer (Kafka's checks): CLUSTER_ACTION on the cluster allows
// every partition; otherwise a topic needs DESCRIBE, else its partitions
// answer TOPIC_AUTHORIZATION_FAILED.
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "protocol/error_code.h"
#include "protocol/offset_for_leader_epoch_request.h"
#include "protocol/offset_for_leader_epoch_response.h"

namespace spool::broker {

using protocol::ErrorCode;

void handle_offset_for_leader_epoch(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::OffsetForLeaderEpochRequest req;
  if (!decode_or_close(ctx, body, req, "OffsetForLeaderEpoch")) return;
  protocol::OffsetForLeaderEpochResponse resp;
  const bool cluster_action = cluster_allowed(b, ctx, security::AclOperation::kClusterAction);
  for (const auto& t : req.topics) {
    auto& tr = resp.topics.emplace_back();
    tr.topic = t.topic;
    const bool permitted = cluster_action || topic_allowed(b, ctx, security::AclOperation::kDescribe, t.topic);
    for (const auto& p : t.partitions) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition = p.partition;
      pr.leader_epoch = -1;
      pr.end_offset = -1;
      if (!permitted) {
        pr.error_code = ErrorCode::kTopicAuthorizationFailed;
        continue;
      }
      auto partition = b.replicas.partition(t.topic, p.partition);
      if (!partition) {
        pr.error_code = ErrorCode::kUnknownTopicOrPartition;
        continue;
      }
      const int32_t epoch = partition->leader_epoch();
      if (p.current_leader_epoch != -1 && p.current_leader_epoch != epoch) {
        pr.error_code =
            p.current_leader_epoch < epoch ? ErrorCode::kFencedLeaderEpoch : ErrorCode::kUnknownLeaderEpoch;
        continue;
      }
      if (!partition->is_leader()) {  // Kafka: fetchOnlyFromLeader, after the epoch check
        pr.error_code = ErrorCode::kNotLeaderOrFollower;
        continue;
      }
      pr.error_code = ErrorCode::kNone;
      auto [found_epoch, end] = partition->last_offset_for_leader_epoch(p.leader_epoch);
      pr.leader_epoch = found_epoch;
      pr.end_offset = end;
    }
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
