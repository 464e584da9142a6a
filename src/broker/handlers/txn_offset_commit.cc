// TxnOffsetCommit v0-3 (v3 flexible). A transactional producer commits a
// group's offsets inside its transaction; they become visible to OffsetFetch
// only when the transaction's COMMIT marker reaches the group's
// __consumer_offsets partition (GroupCoordinator::complete_txn_offsets).
// Partitions of unknown topics (or beyond a topic's partition count) get
// UNKNOWN_TOPIC_OR_PARTITION here; the rest go to the coordinator in one
// call, answered once durable, every requested partition in request order.
// v2 adds the committed leader epoch; v3 the member identity (KIP-447),
// checked by the coordinator only when given.
#include <memory>

#include "broker/group_service.h"
#include "broker/handlers/commit_partitions.h"
#include "broker/handlers/handlers.h"
#include "protocol/txn_offset_commit_request.h"
#include "protocol/txn_offset_commit_response.h"

namespace spool::broker {

using protocol::ErrorCode;

void handle_txn_offset_commit(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::TxnOffsetCommitRequest req;
  if (!decode_or_close(ctx, body, req, "TxnOffsetCommit")) return;
  const int16_t v = ctx.version();
  auto resp = std::make_shared<protocol::TxnOffsetCommitResponse>();
  coordinator::TxnOffsetCommitParams p;
  CommitSlots slots;
  p.offsets = split_commit_partitions(b, req.topics, v >= 2, *resp, slots);
  if (p.offsets.empty()) {
    ctx.respond(*resp);
    return;
  }
  p.transactional_id = std::move(req.transactional_id);
  p.group_id = std::move(req.group_id);
  p.producer_id = req.producer_id;
  p.producer_epoch = req.producer_epoch;
  if (v >= 3) {
    p.generation_id = req.generation_id;
    p.member_id = std::move(req.member_id);
    p.group_instance_id = std::move(req.group_instance_id);
  }
  b.groups->coordinator().commit_txn_offsets(
      std::move(p), [ctx, resp, slots = std::move(slots)](coordinator::PartitionErrors errors) {
        fill_commit_errors(*resp, slots, errors);
        ctx.respond(*resp);
      });
}

}  // namespace spool::broker
