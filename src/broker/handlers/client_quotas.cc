// DescribeClientQuotas (v0-1) and AlterClientQuotas (v0-1): run on the admin
// executor (the metadata store is blocking), answered from there; the work
// is broker/client_quota_store.h's. With an authorizer (Kafka's checks)
// Describe needs DESCRIBE_CONFIGS on the cluster and Alter ALTER_CONFIGS,
// else CLUSTER_AUTHORIZATION_FAILED. A broker wired without a store or
// quota manager (hand-built tests) answers UNKNOWN_SERVER_ERROR.
#include "broker/client_quota_store.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"

namespace spool::broker {
namespace {

Status cluster_denied() {
  return Status::error("Cluster authorization failed.",
                       protocol::to_int(protocol::ErrorCode::kClusterAuthorizationFailed));
}

}  // namespace

void handle_describe_client_quotas(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DescribeClientQuotasRequest req;
  if (!decode_or_close(ctx, body, req, "DescribeClientQuotas")) return;
  auto fail = [ctx](const Status& s) {
    protocol::DescribeClientQuotasResponse resp;
    resp.error_code = static_cast<protocol::ErrorCode>(s.kafka_code());
    resp.error_message = s.message();
    ctx.respond(resp);
  };
  if (!cluster_allowed(b, ctx, security::AclOperation::kDescribeConfigs)) return fail(cluster_denied());
  if (b.config_store == nullptr) return fail(Status::error("no metadata store", -1));
  run_admin_job(b, "describe client quotas", [&b, ctx, req = std::move(req)] {
    ctx.respond(describe_client_quotas(*b.config_store, req), 256);
  }, fail);
}

void handle_alter_client_quotas(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::AlterClientQuotasRequest req;
  if (!decode_or_close(ctx, body, req, "AlterClientQuotas")) return;
  auto fail = [ctx, req](const Status& s) {
    protocol::AlterClientQuotasResponse resp;
    for (const auto& in : req.entries) {
      auto& out = resp.entries.emplace_back();
      out.error_code = static_cast<protocol::ErrorCode>(s.kafka_code());
      out.error_message = s.message();
      for (const auto& p : in.entity) out.entity.push_back({p.entity_type, p.entity_name});
    }
    ctx.respond(resp);
  };
  if (!cluster_allowed(b, ctx, security::AclOperation::kAlterConfigs)) return fail(cluster_denied());
  if (b.config_store == nullptr || b.quotas == nullptr) return fail(Status::error("no metadata store", -1));
  run_admin_job(b, "alter client quotas", [&b, ctx, req = std::move(req)] {
    ctx.respond(alter_client_quotas(*b.config_store, *b.quotas, req, /*notify=*/b.cluster != nullptr));
  }, fail);
}

}  // namespace spool::broker
