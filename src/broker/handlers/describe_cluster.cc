// DescribeCluster v0-2: this broker is the whole cluster and its controller.
// Without an authorizer every cluster operation is allowed, so when asked the
// authorized-operations bit set lists all of them (as Kafka does then).
// - v1 EndpointType (KIP-919): 1 (brokers) is answered; 2 (controllers) on
//   this broker listener is MISMATCHED_ENDPOINT_TYPE, any other value
//   UNSUPPORTED_ENDPOINT_TYPE, with Kafka's messages and an otherwise empty
//   answer. The answer's EndpointType is 1.
// - v2 IncludeFencedBrokers (KIP-1073) and IsFenced: this broker is never
//   fenced, so the list is the same either way and IsFenced is false.
#include <string>

#include "broker/handlers/authorize.h"
#include "broker/cluster_member.h"
#include "broker/handlers/handlers.h"
#include "protocol/describe_cluster_request.h"
#include "protocol/describe_cluster_response.h"
#include "protocol/error_code.h"

namespace spool::broker {

namespace {
constexpr int8_t kBrokerEndpoint = 1;
constexpr int8_t kControllerEndpoint = 2;
}  // namespace

void handle_describe_cluster(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DescribeClusterRequest req;
  if (!decode_or_close(ctx, body, req, "DescribeCluster")) return;
  protocol::DescribeClusterResponse resp;
  resp.endpoint_type = kBrokerEndpoint;
  if (ctx.version() >= 1 && req.endpoint_type != kBrokerEndpoint) {
    if (req.endpoint_type == kControllerEndpoint) {
      resp.error_code = protocol::ErrorCode::kMismatchedEndpointType;
      resp.error_message =
          "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER";
    } else {
      resp.error_code = protocol::ErrorCode::kUnsupportedEndpointType;
      resp.error_message = "Unsupported endpoint type " + std::to_string(req.endpoint_type);
    }
    ctx.respond(resp);
    return;
  }
  resp.error_code = protocol::ErrorCode::kNone;
  if (b.cluster != nullptr && b.metadata != nullptr) {
    // Cluster mode: the live brokers and the controller from the metadata cache.
    resp.cluster_id = b.cluster->cluster_id();
    resp.controller_id = b.metadata->controller_id();
    for (const auto& lb : b.metadata->live_brokers()) {
      for (const auto& ep : lb.endpoints) {
        if (ep.listener != ctx.listener_name) continue;
        auto& br = resp.brokers.emplace_back();
        br.broker_id = lb.id;
        br.host = ep.host;
        br.port = ep.port;
        br.rack = lb.rack;
        br.is_fenced = false;
      }
    }
    if (req.include_cluster_authorized_operations) resp.cluster_authorized_operations = cluster_authorized_operations(b, ctx);
    ctx.respond(resp);
    return;
  }
  resp.cluster_id = b.logs.cluster_id();
  resp.controller_id = b.settings.broker_id;
  if (const cluster::EndPoint* ep = b.settings.advertised_on(ctx.listener_name)) {
    auto& self = resp.brokers.emplace_back();
    self.broker_id = b.settings.broker_id;
    self.host = ep->host;
    self.port = ep->port;
    self.is_fenced = false;
    if (b.config != nullptr) {
      auto rack = b.config->get_optional("broker.rack");
      if (rack && !rack->empty()) self.rack = std::move(rack);
    }
  }
  if (req.include_cluster_authorized_operations) resp.cluster_authorized_operations = cluster_authorized_operations(b, ctx);
  ctx.respond(resp);
}

}  // namespace spool::broker
