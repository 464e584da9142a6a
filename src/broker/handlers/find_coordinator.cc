// FindCoordinator v0-2. Key type 0 (GROUP): this broker, after making sure
// __consumer_offsets exists (created with its partitions loaded on the first
// call). Key type 1 (TRANSACTION): this broker, after making sure
// __transaction_state exists (likewise created and loaded on first need); an
// empty transactional id is INVALID_REQUEST. Any other key type is
// INVALID_REQUEST. Errors answer node -1, host "", port -1 as Kafka does.
#include "broker/group_service.h"
#include "broker/handlers/group_common.h"
#include "broker/handlers/handlers.h"
#include "broker/txn_service.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {
constexpr int8_t kGroupKey = 0;
constexpr int8_t kTransactionKey = 1;
}  // namespace

void handle_find_coordinator(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::FindCoordinatorRequest req;
  if (!decode_or_close(ctx, body, req, "FindCoordinator")) return;
  protocol::FindCoordinatorResponse resp;
  auto fail = [&](ErrorCode c, const char* message) {
    resp.error_code = c;
    resp.error_message = message;
    resp.node_id = -1;
    resp.host = "";
    resp.port = -1;
    ctx.respond(resp);
  };
  const int8_t key_type = ctx.version() >= 1 ? req.key_type : kGroupKey;
  if (key_type == kTransactionKey) {
    if (req.key.empty()) return fail(ErrorCode::kInvalidRequest, "The transactional id is empty.");
    if (b.txns == nullptr) return fail(ErrorCode::kCoordinatorNotAvailable, "The coordinator is not available.");
    if (ErrorCode e = b.txns->ensure_state_topic(); e != ErrorCode::kNone)
      return fail(e, "The coordinator is not available.");
  } else if (key_type != kGroupKey) {
    return fail(ErrorCode::kInvalidRequest, "Unknown coordinator type in FindCoordinator request");
  } else {
    if (b.groups == nullptr)
      return fail(ErrorCode::kCoordinatorNotAvailable, "The coordinator is not available.");
    if (ErrorCode e = b.groups->ensure_offsets_topic(); e != ErrorCode::kNone)
      return fail(e, "The coordinator is not available.");
  }
  resp.error_code = ErrorCode::kNone;
  resp.error_message = "NONE";
  resp.node_id = b.settings.broker_id;
  resp.host = b.settings.advertised_host;
  resp.port = b.settings.advertised_port;
  ctx.respond(resp);
}

}  // namespace spool::broker
