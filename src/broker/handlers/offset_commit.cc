// OffsetCommit v2-10 (classic groups). Partitions of unknown topics (or
// beyond a topic's partition count) get UNKNOWN_TOPIC_OR_PARTITION here; the
// rest go to the coordinator in one call, which answers once the commit is
// durable. The answer lists every requested partition in request order.
//  * v2-4 carry a retention time (-1 = offsets.retention.minutes); v5+ none.
//  * v6 CommittedLeaderEpoch; v7 group.instance.id; v8 is the first flexible.
//  * v9 (KIP-848): GenerationIdOrMemberEpoch is the generation for a classic
//    group; a commit with a generation >= 0 for a group that does not exist
//    answers GROUP_ID_NOT_FOUND instead of ILLEGAL_GENERATION.
//  * v10: topics are named by TopicId (resolved through the topic
//    registry); an id no topic has answers UNKNOWN_TOPIC_ID for each of its
//    partitions, and the answer names topics by the same ids.
// With an authorizer (Kafka's checks): without READ on the group every
// partition answers GROUP_AUTHORIZATION_FAILED; without READ on a topic its
// partitions answer TOPIC_AUTHORIZATION_FAILED.
#include <memory>

#include "broker/group_service.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/commit_partitions.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_lookup.h"
#include "protocol/offset_commit_request.h"
#include "protocol/offset_commit_response.h"

namespace spool::broker {

using protocol::ErrorCode;

void handle_offset_commit(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::OffsetCommitRequest req;
  if (!decode_or_close(ctx, body, req, "OffsetCommit")) return;
  const int16_t v = ctx.version();
  std::vector<ErrorCode> topic_errors(req.topics.size(), ErrorCode::kNone);
  if (v >= 10) {
    for (size_t i = 0; i < req.topics.size(); ++i) {
      auto& t = req.topics[i];
      auto name = topic_name_by_id(b, t.topic_id);
      if (name) {
        t.name = *name;
      } else {
        t.name.clear();
        topic_errors[i] = ErrorCode::kUnknownTopicId;
      }
    }
  }
  const bool group_permitted = group_allowed(b, ctx, security::AclOperation::kRead, req.group_id);
  for (size_t i = 0; i < req.topics.size(); ++i) {
    if (topic_errors[i] != ErrorCode::kNone) continue;
    if (!group_permitted) {
      topic_errors[i] = ErrorCode::kGroupAuthorizationFailed;
    } else if (!topic_allowed(b, ctx, security::AclOperation::kRead, req.topics[i].name)) {
      topic_errors[i] = ErrorCode::kTopicAuthorizationFailed;
    }
  }
  auto resp = std::make_shared<protocol::OffsetCommitResponse>();
  coordinator::OffsetCommitParams p;
  CommitSlots slots;
  p.offsets = split_commit_partitions(b, req.topics, v >= 6, *resp, slots, &topic_errors);
  for (size_t i = 0; i < req.topics.size(); ++i) resp->topics[i].topic_id = req.topics[i].topic_id;
  if (p.offsets.empty()) {
    ctx.respond(*resp);
    return;
  }
  p.group_id = std::move(req.group_id);
  p.generation_id = req.generation_id_or_member_epoch;
  p.member_id = std::move(req.member_id);
  if (v >= 7) p.group_instance_id = std::move(req.group_instance_id);
  p.retention_time_ms = v <= 4 ? req.retention_time_ms : -1;
  p.group_id_not_found = v >= 9;
  b.groups->coordinator().commit_offsets(
      std::move(p), [ctx, resp, slots = std::move(slots)](coordinator::PartitionErrors errors) {
        fill_commit_errors(*resp, slots, errors);
        ctx.respond(*resp);
      });
}

}  // namespace spool::broker
