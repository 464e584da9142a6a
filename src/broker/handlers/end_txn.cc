// EndTxn v0-4: commit or abort. Answered once PrepareCommit/PrepareAbort is
// durable; the markers and the Complete state follow in the background.
// PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH below v2 (KIP-588); v3 is
// the first flexible version; v4 is v3 for a client that understands
// TRANSACTION_ABORTABLE (Kafka returns it nowhere on this path).
// v5 is not served: Kafka 4.4 treats every EndTxn v5 as a transaction-
// version-2 client (KIP-890 part 2: the epoch is bumped at every commit or
// abort and returned in ProducerId/ProducerEpoch), whatever the cluster's
// transaction.version; Spool has no transaction version 2 yet. Clients keep
// to v4 while no transaction.version >= 2 is finalized, as against Kafka.
// With an authorizer: WRITE on the transactional id (else
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED), as Kafka.
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/txn_common.h"
#include "broker/txn_service.h"
#include "protocol/end_txn_request.h"
#include "protocol/end_txn_response.h"

namespace spool::broker {

using protocol::ErrorCode;

void handle_end_txn(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::EndTxnRequest req;
  if (!decode_or_close(ctx, body, req, "EndTxn")) return;
  const int16_t v = ctx.version();
  auto answer = [ctx, v](ErrorCode e) {
    protocol::EndTxnResponse resp;
    resp.error_code = txn_error(e, v, 2);
    ctx.respond(resp);
  };
  if (!allowed(b, ctx, security::AclOperation::kWrite, security::ResourceType::kTransactionalId,
               req.transactional_id)) {
    return answer(ErrorCode::kTransactionalIdAuthorizationFailed);
  }
  if (b.txns == nullptr) return answer(ErrorCode::kCoordinatorNotAvailable);
  b.txns->coordinator().end_txn(req.transactional_id, req.producer_id, req.producer_epoch, req.committed, answer);
}

}  // namespace spool::broker
