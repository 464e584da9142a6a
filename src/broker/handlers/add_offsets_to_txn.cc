// AddOffsetsToTxn v0-4: adds the group's __consumer_offsets partition to the
// transaction, so the EndTxn markers also settle the group's transactional
// offset commits. The group need not exist yet. PRODUCER_FENCED becomes
// INVALID_PRODUCER_EPOCH below v2 (KIP-588); v3 is the first flexible
// version; v4 is v3 for a client that understands TRANSACTION_ABORTABLE
// (Kafka returns it nowhere on this path). A missing __consumer_offsets is
// created on the admin executor first (COORDINATOR_NOT_AVAILABLE if it
// refuses the job). With an authorizer (Kafka's checks): WRITE on the
// transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then READ
// on the group (else GROUP_AUTHORIZATION_FAILED).
#include "broker/group_service.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/txn_common.h"
#include "broker/txn_service.h"
#include "protocol/add_offsets_to_txn_request.h"
#include "protocol/add_offsets_to_txn_response.h"

namespace spool::broker {

using protocol::ErrorCode;

void handle_add_offsets_to_txn(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  auto req = std::make_shared<protocol::AddOffsetsToTxnRequest>();
  if (!decode_or_close(ctx, body, *req, "AddOffsetsToTxn")) return;
  const int16_t v = ctx.version();
  auto answer = [ctx, v](ErrorCode e) {
    protocol::AddOffsetsToTxnResponse resp;
    resp.error_code = txn_error(e, v, 2);
    ctx.respond(resp);
  };
  if (!allowed(b, ctx, security::AclOperation::kWrite, security::ResourceType::kTransactionalId,
               req->transactional_id)) {
    return answer(ErrorCode::kTransactionalIdAuthorizationFailed);
  }
  if (!group_allowed(b, ctx, security::AclOperation::kRead, req->group_id)) {
    return answer(ErrorCode::kGroupAuthorizationFailed);
  }
  if (b.txns == nullptr || b.groups == nullptr) return answer(ErrorCode::kCoordinatorNotAvailable);
  auto add = [&b, req, answer] {
    b.txns->coordinator().add_offsets(req->transactional_id, req->producer_id, req->producer_epoch, req->group_id,
                                      answer);
  };
  if (b.groups->offsets_topic_ready()) return add();
  // The partition must exist for its marker to be written: creating the
  // topic is admin executor work.
  run_admin_job(
      b, "AddOffsetsToTxn",
      [&b, add, answer] {
        if (ErrorCode e = b.groups->ensure_offsets_topic(); e != ErrorCode::kNone) return answer(e);
        add();
      },
      [answer](const Status&) { answer(ErrorCode::kCoordinatorNotAvailable); });
}

}  // namespace spool::broker
