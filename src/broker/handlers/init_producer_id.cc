// InitProducerId (v0-5 served; v6 decoded): a new producer id for an
// idempotent producer, or the transaction coordinator's answer.
//
// As Kafka's coordinator does for a null transactional id, every request gets
// a fresh id with epoch 0, whatever producer_id/epoch (v3+, KIP-360) it
// carries: an idempotent producer has no coordinator-side state whose epoch
// could be bumped, and clients recover by bumping the epoch themselves or by
// taking the new id (the partition accepts both: see storage/producer_state.h).
// The v3+ pair is still checked for consistency (both set or both -1), as
// Kafka's request handler does.
// With a transactional id the request belongs to the transaction coordinator
// (TxnService): after Kafka's checks (empty id -> INVALID_REQUEST, timeout
// outside (0, transaction.max.timeout.ms] -> INVALID_TRANSACTION_TIMEOUT) it
// bumps the id's epoch (or allocates one), answered once durable; v3+ pass
// the KIP-360 (producer id, epoch) pair; PRODUCER_FENCED becomes
// INVALID_PRODUCER_EPOCH below v4 (KIP-588). v5 is v4 for a client that
// understands TRANSACTION_ABORTABLE (Kafka returns it nowhere here).
// v6 (KIP-939, two-phase commit) is unstable in Kafka 4.4, which neither
// advertises nor serves it by default; the table keeps it out too. Its
// answers are Kafka's with transaction.two.phase.commit.enable=false:
// Enable2Pc -> TRANSACTIONAL_ID_AUTHORIZATION_FAILED, KeepPreparedTxn ->
// UNSUPPORTED_VERSION, OngoingTxnProducerId/Epoch -1.
// With an authorizer (Kafka's checks, first): a transactional id needs WRITE
// on it (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED); an idempotent producer
// needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic (KIP-679;
// else CLUSTER_AUTHORIZATION_FAILED).
#include <spdlog/spdlog.h>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/txn_common.h"
#include "broker/producer_id_manager.h"
#include "broker/txn_service.h"
#include "protocol/error_code.h"
#include "protocol/init_producer_id_request.h"
#include "protocol/init_producer_id_response.h"

namespace spool::broker {

using protocol::ErrorCode;

void handle_init_producer_id(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::InitProducerIdRequest req;
  if (!decode_or_close(ctx, body, req, "InitProducerId")) return;
  protocol::InitProducerIdResponse resp;
  resp.producer_id = -1;
  resp.producer_epoch = -1;
  auto answer = [&](ErrorCode c) {
    resp.error_code = c;
    ctx.respond(resp);
  };
  if (ctx.version() >= 3 && ((req.producer_id == -1) != (req.producer_epoch == -1))) {
    answer(ErrorCode::kInvalidRequest);
    return;
  }
  if (req.transactional_id) {
    if (!allowed(b, ctx, security::AclOperation::kWrite, security::ResourceType::kTransactionalId,
                 *req.transactional_id)) {
      answer(ErrorCode::kTransactionalIdAuthorizationFailed);
      return;
    }
  } else if (!cluster_allowed(b, ctx, security::AclOperation::kIdempotentWrite) &&
             !allowed_on_any(b, ctx, security::AclOperation::kWrite, security::ResourceType::kTopic)) {
    answer(ErrorCode::kClusterAuthorizationFailed);
    return;
  }
  if (req.transactional_id) {
    if (req.transactional_id->empty()) {
      answer(ErrorCode::kInvalidRequest);
    } else if (req.enable2_pc) {
      answer(ErrorCode::kTransactionalIdAuthorizationFailed);
    } else if (req.keep_prepared_txn) {
      answer(ErrorCode::kUnsupportedVersion);
    } else if (req.transaction_timeout_ms <= 0 || req.transaction_timeout_ms > b.settings.transaction_max_timeout_ms) {
      answer(ErrorCode::kInvalidTransactionTimeout);
    } else if (b.txns == nullptr) {
      answer(ErrorCode::kCoordinatorNotAvailable);
    } else {
      std::optional<std::pair<int64_t, int16_t>> expected;
      if (ctx.version() >= 3 && req.producer_id != -1) expected.emplace(req.producer_id, req.producer_epoch);
      const int16_t v = ctx.version();
      b.txns->coordinator().init_producer_id(
          *req.transactional_id, req.transaction_timeout_ms, expected,
          [ctx, v](coordinator::InitProducerIdResult r) {
            protocol::InitProducerIdResponse out;
            out.error_code = txn_error(r.error, v, 4);
            out.producer_id = r.error == ErrorCode::kNone ? r.producer_id : -1;
            out.producer_epoch = r.error == ErrorCode::kNone ? r.producer_epoch : -1;
            ctx.respond(out);
          });
    }
    return;
  }
  if (b.producer_ids == nullptr) {
    answer(ErrorCode::kCoordinatorNotAvailable);
    return;
  }
  auto id = b.producer_ids->next_id();
  if (!id) {
    answer(ErrorCode::kKafkaStorageError);
    return;
  }
  resp.producer_id = *id;
  resp.producer_epoch = 0;
  spdlog::debug("producer id {} for {} ({})", *id, ctx.conn.peer, ctx.header.client_id.value_or(""));
  answer(ErrorCode::kNone);
}

}  // namespace spool::broker
