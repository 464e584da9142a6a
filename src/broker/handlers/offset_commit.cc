// OffsetCommit v2-7. Partitions of unknown topics (or beyond a topic's
// partition count) get UNKNOWN_TOPIC_OR_PARTITION here; the rest go to the
// coordinator in one call, which answers once the commit is durable. The
// answer lists every requested partition in request order. v2-4 carry a
// retention time (-1 = offsets.retention.minutes); v5+ have none; v7 adds
// group.instance.id.
#include <memory>

#include "broker/group_service.h"
#include "broker/handlers/commit_partitions.h"
#include "broker/handlers/handlers.h"
#include "protocol/offset_commit_request.h"
#include "protocol/offset_commit_response.h"

namespace spool::broker {

using protocol::ErrorCode;

void handle_offset_commit(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::OffsetCommitRequest req;
  if (!decode_or_close(ctx, body, req, "OffsetCommit")) return;
  const int16_t v = ctx.version();
  auto resp = std::make_shared<protocol::OffsetCommitResponse>();
  coordinator::OffsetCommitParams p;
  CommitSlots slots;
  p.offsets = split_commit_partitions(b, req.topics, v >= 6, *resp, slots);
  if (p.offsets.empty()) {
    ctx.respond(*resp);
    return;
  }
  p.group_id = std::move(req.group_id);
  p.generation_id = req.generation_id_or_member_epoch;
  p.member_id = std::move(req.member_id);
  if (v >= 7) p.group_instance_id = std::move(req.group_instance_id);
  p.retention_time_ms = v <= 4 ? req.retention_time_ms : -1;
  b.groups->coordinator().commit_offsets(
      std::move(p), [ctx, resp, slots = std::move(slots)](coordinator::PartitionErrors errors) {
        fill_commit_errors(*resp, slots, errors);
        ctx.respond(*resp);
      });
}

}  // namespace spool::broker
