// DescribeCluster (v0): this broker is the whole cluster and its controller.
// Without an authorizer every cluster operation is allowed, so when asked the
// authorized-operations bit set lists all of them (as Kafka does then).
#include "broker/handlers/handlers.h"
#include "protocol/describe_cluster_request.h"
#include "protocol/describe_cluster_response.h"
#include "protocol/error_code.h"

namespace spool::broker {

namespace {

// Kafka's AclOperation codes that apply to the CLUSTER resource.
constexpr int32_t kClusterOperations = (1 << 5)     // CREATE
                                       | (1 << 7)   // ALTER
                                       | (1 << 8)   // DESCRIBE
                                       | (1 << 9)   // CLUSTER_ACTION
                                       | (1 << 10)  // DESCRIBE_CONFIGS
                                       | (1 << 11)  // ALTER_CONFIGS
                                       | (1 << 12);  // IDEMPOTENT_WRITE

}  // namespace

void handle_describe_cluster(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DescribeClusterRequest req;
  if (!decode_or_close(ctx, body, req, "DescribeCluster")) return;
  protocol::DescribeClusterResponse resp;
  resp.error_code = protocol::ErrorCode::kNone;
  resp.cluster_id = b.logs.cluster_id();
  resp.controller_id = b.settings.broker_id;
  auto& self = resp.brokers.emplace_back();
  self.broker_id = b.settings.broker_id;
  self.host = b.settings.advertised_host;
  self.port = b.settings.advertised_port;
  if (b.config != nullptr) {
    auto rack = b.config->get_optional("broker.rack");
    if (rack && !rack->empty()) self.rack = std::move(rack);
  }
  if (req.include_cluster_authorized_operations) resp.cluster_authorized_operations = kClusterOperations;
  ctx.respond(resp);
}

}  // namespace spool::broker
