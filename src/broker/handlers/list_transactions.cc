// ListTransactions v0-2 (KIP-664): the transactional ids this coordinator
// owns (not Dead), filtered by state names and producer ids (empty filter =
// all); unknown state names come back in UnknownStateFilters and match
// nothing. v1 adds DurationFilter (KIP-994): when >= 0, only transactions
// whose start is more than that many ms ago (as in Kafka, one that never
// started counts as started at time 0). v2 adds TransactionalIdPattern
// (KIP-1152): when neither null nor empty, a regular expression the whole id
// must match; one that does not compile answers INVALID_REGULAR_EXPRESSION
// with no transactions. COORDINATOR_LOAD_IN_PROGRESS while a partition of
// __transaction_state loads. With an authorizer, only the ids the principal
// may DESCRIBE are listed (Kafka's filter).
#include "broker/handlers/authorize.h"
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
  coordinator::ListTxnsFilter f;
  f.states = std::move(req.state_filters);
  f.producer_ids = std::move(req.producer_id_filters);
  f.min_duration_ms = ctx.version() >= 1 ? req.duration_filter : -1;
  if (ctx.version() >= 2) f.id_pattern = std::move(req.transactional_id_pattern);
  auto r = b.txns->coordinator().list(f);
  resp.error_code = r.error;
  resp.unknown_state_filters = std::move(r.unknown_state_filters);
  for (auto& t : r.transactions) {
    if (!allowed(b, ctx, security::AclOperation::kDescribe, security::ResourceType::kTransactionalId,
                 t.transactional_id)) {
      continue;
    }
    auto& s = resp.transaction_states.emplace_back();
    s.transactional_id = std::move(t.transactional_id);
    s.producer_id = t.producer_id;
    s.transaction_state = std::move(t.state);
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
