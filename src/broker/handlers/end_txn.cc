// EndTxn v0-2: commit or abort. Answered once PrepareCommit/PrepareAbort is
// durable; the markers and the Complete state follow in the background.
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
  if (b.txns == nullptr) return answer(ErrorCode::kCoordinatorNotAvailable);
  b.txns->coordinator().end_txn(req.transactional_id, req.producer_id, req.producer_epoch, req.committed, answer);
}

}  // namespace spool::broker
