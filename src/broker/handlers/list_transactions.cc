// ListTransactions v0 (KIP-664): the transactional ids this coordinator owns,
// filtered by state names and producer ids (empty filter = all). Unknown
// state names come back in UnknownStateFilters.
#include "broker/handlers/handlers.h"
#include "broker/txn_service.h"
#include "protocol/list_transactions_request.h"
#include "protocol/list_transactions_response.h"

namespace spool::broker {

using protocol::ErrorCode;

void handle_list_transactions(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::ListTransactionsRequest req;
  if (!decode_or_close(ctx, body, req, "ListTransactions")) return;
  protocol::ListTransactionsResponse resp;
  if (b.txns == nullptr) {
    resp.error_code = ErrorCode::kCoordinatorNotAvailable;
    ctx.respond(resp);
    return;
  }
  auto r = b.txns->coordinator().list(req.state_filters, req.producer_id_filters);
  resp.error_code = r.error;
  resp.unknown_state_filters = std::move(r.unknown_state_filters);
  for (auto& t : r.transactions) {
    auto& s = resp.transaction_states.emplace_back();
    s.transactional_id = std::move(t.transactional_id);
    s.producer_id = t.producer_id;
    s.transaction_state = std::move(t.state);
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
