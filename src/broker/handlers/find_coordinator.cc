// FindCoordinator v0-6. This single node coordinates every group and
// transactional id, so each lookup answers this broker or an error:
//  * Key type 0 (GROUP): after making sure __consumer_offsets exists
//    (created with its partitions loaded on the first call).
//  * Key type 1 (TRANSACTION): after making sure __transaction_state exists
//    (likewise); an empty transactional id is INVALID_REQUEST.
//  * Key type 2 (SHARE, KIP-932): Spool has no share groups, so it answers
//    as Kafka with share groups off: INVALID_REQUEST (before v6 the key type
//    is INVALID_REQUEST too).
//  * Any other key type fails the whole request with INVALID_REQUEST
//    (Kafka's InvalidRequestException from CoordinatorType.forId).
// v0-3 look up Key and answer the top-level fields; errors answer node -1,
// host "", port -1. v4+ (KIP-699) look up every CoordinatorKeys entry and
// answer one Coordinators entry per key, in request order, with an empty
// ErrorMessage (Kafka's per-key lookup leaves the field at its default "";
// a whole-request error carries the error's default message). v5 (TRANSACTION_ABORTABLE) and v6 change no
// answer of this broker.
// A lookup that would create its coordinator topic runs on the admin
// executor (broker/admin_executor.h) and answers from there; if the executor
// refuses it, the keys whose topic is missing answer COORDINATOR_NOT_AVAILABLE.
// With an authorizer (Kafka's checks) a group key needs DESCRIBE on the group
// (else GROUP_AUTHORIZATION_FAILED), a transactional id DESCRIBE on it (else
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
#include "broker/group_service.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/group_common.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/cluster_handlers.h"
#include "broker/handlers/handlers.h"
#include "broker/txn_service.h"
#include "broker/group_service.h"
#include "broker/topic_name.h"
#include "cluster/metadata_cache.h"
#include "broker/txn_service.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {
constexpr int8_t kGroupKey = 0;
constexpr int8_t kTransactionKey = 1;
constexpr int8_t kShareKey = 2;

struct Lookup {
  Lookup() = default;
  Lookup(ErrorCode e, const char* m) : error(e), message(m) {}
  ErrorCode error = ErrorCode::kNone;
  const char* message = "NONE";
  int32_t node_id = -1;  // the coordinator found (with its endpoint below)
  std::string host;
  int32_t port = -1;
};

// Cluster mode (Kafka's ZooKeeper-mode FindCoordinator): the coordinator is
// the leader of the key's partition of the internal topic, as the metadata
// cache shows it; COORDINATOR_NOT_AVAILABLE while the topic does not exist
// (its creation is queued, cluster_handlers.h) or the partition has no live
// leader.
Lookup find_in_cluster(BrokerContext& b, const std::string& listener, int8_t key_type, const std::string& key) {
  const Lookup unavailable{ErrorCode::kCoordinatorNotAvailable, "The coordinator is not available."};
  if (key_type == kShareKey) return {ErrorCode::kInvalidRequest, "Share groups are not supported."};
  if (key_type == kTransactionKey && key.empty()) return {ErrorCode::kInvalidRequest, "The transactional id is empty."};
  const bool txn = key_type == kTransactionKey;
  if (txn ? b.txns == nullptr : b.groups == nullptr) return unavailable;
  const std::string topic = txn ? "__transaction_state" : kConsumerOffsetsTopic;
  if (!b.metadata->contains_topic(topic)) {
    cluster_auto_create(b, topic);
    return unavailable;
  }
  const int32_t p = txn ? b.txns->coordinator().partition_for(key) : b.groups->coordinator().partition_for(key);
  auto view = b.metadata->describe_partition(TopicPartition{topic, p});
  if (!view || view->leader < 0) return unavailable;
  Lookup found;
  if (!cluster_broker_endpoint(b, view->leader, listener, &found.host, &found.port)) return unavailable;
  found.node_id = view->leader;
  return found;
}

// may_create false: a coordinator topic that does not exist yet is answered
// COORDINATOR_NOT_AVAILABLE instead of created (the admin executor refused).
Lookup find_local(BrokerContext& b, int8_t key_type, const std::string& key, bool may_create) {
  const Lookup unavailable{ErrorCode::kCoordinatorNotAvailable, "The coordinator is not available."};
  if (key_type == kTransactionKey) {
    if (key.empty()) return {ErrorCode::kInvalidRequest, "The transactional id is empty."};
    if (b.txns == nullptr) return unavailable;
    // Ready: ensure would only take its lock (held while it loads) to say NONE.
    if (b.txns->state_topic_ready()) return {};
    if (!may_create) return unavailable;
    if (ErrorCode e = b.txns->ensure_state_topic(); e != ErrorCode::kNone) return {e, unavailable.message};
    return {};
  }
  if (key_type == kShareKey) return {ErrorCode::kInvalidRequest, "Share groups are not supported."};
  if (b.groups == nullptr) return unavailable;
  if (b.groups->offsets_topic_ready()) return {};
  if (!may_create) return unavailable;
  if (ErrorCode e = b.groups->ensure_offsets_topic(); e != ErrorCode::kNone) return {e, unavailable.message};
  return {};
}

// The lookup of one key, with the coordinator's endpoint on the request's
// listener (this broker's on a single node); a coordinator without one there
// is COORDINATOR_NOT_AVAILABLE, as Kafka.
Lookup find_one(BrokerContext& b, const std::string& listener, int8_t key_type, const std::string& key,
                bool may_create) {
  if (b.cluster != nullptr && b.metadata != nullptr) return find_in_cluster(b, listener, key_type, key);
  Lookup l = find_local(b, key_type, key, may_create);
  if (l.error != ErrorCode::kNone) return l;
  const cluster::EndPoint* self = b.settings.advertised_on(listener);
  if (self == nullptr) return {ErrorCode::kCoordinatorNotAvailable, "The coordinator is not available."};
  l.node_id = b.settings.broker_id;
  l.host = self->host;
  l.port = self->port;
  return l;
}

// The lookup of one key for this request's principal: refused without
// DESCRIBE on the group or transactional id, else find_one.
Lookup find_authorized(BrokerContext& b, const RequestContext& ctx, int8_t key_type, const std::string& key,
                       bool may_create) {
  if (key_type == kGroupKey && !group_allowed(b, ctx, security::AclOperation::kDescribe, key)) {
    return {ErrorCode::kGroupAuthorizationFailed, "Group authorization failed."};
  }
  if (key_type == kTransactionKey &&
      !allowed(b, ctx, security::AclOperation::kDescribe, security::ResourceType::kTransactionalId, key)) {
    return {ErrorCode::kTransactionalIdAuthorizationFailed, "Transactional Id authorization failed."};
  }
  return find_one(b, ctx.listener_name, key_type, key, may_create);
}

// Whether answering key_type would create (and load) a coordinator topic:
// then the lookup runs on the admin executor.
bool needs_creation(BrokerContext& b, int8_t key_type) {
  if (b.cluster != nullptr) return false;  // queued by find_in_cluster, not waited for
  if (key_type == kTransactionKey) return b.txns != nullptr && !b.txns->state_topic_ready();
  if (key_type == kGroupKey) return b.groups != nullptr && !b.groups->offsets_topic_ready();
  return false;
}

void answer(BrokerContext& b, const RequestContext& ctx, const protocol::FindCoordinatorRequest& req, bool may_create);

}  // namespace

void handle_find_coordinator(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  auto req = std::make_shared<protocol::FindCoordinatorRequest>();
  if (!decode_or_close(ctx, body, *req, "FindCoordinator")) return;
  const int8_t key_type = ctx.version() >= 1 ? req->key_type : kGroupKey;
  if (!needs_creation(b, key_type)) return answer(b, ctx, *req, true);  // nothing to create: no wait
  run_admin_job(
      b, "FindCoordinator", [&b, ctx, req] { answer(b, ctx, *req, true); },
      [&b, ctx, req](const Status&) { answer(b, ctx, *req, false); });
}

namespace {

void answer(BrokerContext& b, const RequestContext& ctx, const protocol::FindCoordinatorRequest& req, bool may_create) {
  protocol::FindCoordinatorResponse resp;
  const int16_t v = ctx.version();
  const int8_t key_type = v >= 1 ? req.key_type : kGroupKey;
  const bool known_type = key_type == kGroupKey || key_type == kTransactionKey || key_type == kShareKey;

  if (v >= 4) {
    resp.coordinators.reserve(req.coordinator_keys.size());
    for (const auto& key : req.coordinator_keys) {
      auto& c = resp.coordinators.emplace_back();
      c.key = key;
      c.error_message = "";
      Lookup l;
      if (!known_type) {
        l = {ErrorCode::kInvalidRequest, nullptr};
        c.error_message = "This most likely occurs because of a request being malformed by the client library or "
                          "the message was sent to an incompatible broker. See the broker logs for more details.";
      } else {
        l = find_authorized(b, ctx, key_type, key, may_create);
      }
      c.error_code = l.error;
      if (l.error == ErrorCode::kNone) {
        c.node_id = l.node_id;
        c.host = l.host;
        c.port = l.port;
      } else {
        c.node_id = -1;
        c.host = "";
        c.port = -1;
      }
    }
    ctx.respond(resp);
    return;
  }

  Lookup l = known_type ? find_authorized(b, ctx, key_type, req.key, may_create)
                        : Lookup{ErrorCode::kInvalidRequest, "Unknown coordinator type in FindCoordinator request"};
  resp.error_code = l.error;
  resp.error_message = l.message;
  if (l.error == ErrorCode::kNone) {
    resp.node_id = l.node_id;
    resp.host = l.host;
    resp.port = l.port;
  } else {
    resp.node_id = -1;
    resp.host = "";
    resp.port = -1;
  }
  ctx.respond(resp);
}

}  // namespace

}  // namespace spool::broker
