// The brokers' requests to the controller (cluster mode only): AlterPartition
// v0-3 (KIP-497: a leader's ISR change) and ControlledShutdown v0-3 (a
// broker moving its leadership away before it stops). Both are handed to the
// local Controller (cluster/controller/controller.h) when it is the active
// one, and answered from its event thread; otherwise NOT_CONTROLLER (the
// sender re-reads the controller from its metadata and retries), as Kafka's
// KafkaApis does. AlterPartition v2+ names topics by id: ids resolve through
// this broker's metadata cache (the controller keeps it current); an id it
// does not know is answered UNKNOWN_TOPIC_ID for that topic.
#include <spdlog/spdlog.h>

#include <memory>

#include "broker/cluster_member.h"
#include "broker/handlers/handlers.h"
#include "cluster/controller/controller_requests_wire.h"
#include "cluster/metadata_cache.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

// The local controller when it is the active one, else null (also before
// ClusterMember::start() has made it, and while the broker stops).
cluster::controller::Controller* active_controller(BrokerContext& b) {
  cluster::controller::Controller* c = b.cluster != nullptr ? b.cluster->controller() : nullptr;
  return c != nullptr && c->is_active() ? c : nullptr;
}

}  // namespace

void handle_alter_partition(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::AlterPartitionRequest req;
  if (!decode_or_close(ctx, body, req, "AlterPartition")) return;
  cluster::controller::Controller* controller = active_controller(b);
  if (controller == nullptr) {
    protocol::AlterPartitionResponse resp;
    resp.error_code = ErrorCode::kNotController;
    ctx.respond(resp);
    return;
  }
  cluster::MetadataCache* cache = b.metadata;
  auto names = [cache](const TopicId& id) -> std::optional<std::string> {
    return cache != nullptr ? cache->topic_name(id) : std::nullopt;
  };
  auto input = std::make_shared<cluster::controller::AlterPartitionInput>(
      cluster::controller::alter_partition_from_wire(req, ctx.version(), names));
  controller->alter_partition(input->request,
                                          [ctx, input](const cluster::controller::AlterPartitionResult& result) {
                                            ctx.respond(cluster::controller::alter_partition_response(*input, result));
                                          });
}

void handle_controlled_shutdown(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::ControlledShutdownRequest req;
  if (!decode_or_close(ctx, body, req, "ControlledShutdown")) return;
  cluster::controller::Controller* controller = active_controller(b);
  if (controller == nullptr) {
    cluster::controller::ControlledShutdownResult r;
    r.error = ErrorCode::kNotController;
    ctx.respond(cluster::controller::controlled_shutdown_response(r));
    return;
  }
  auto in = cluster::controller::controlled_shutdown_from_wire(req, ctx.version());
  spdlog::info("controlled shutdown requested by broker {} (broker epoch {})", in.broker_id, in.broker_epoch);
  controller->controlled_shutdown(
      in.broker_id, in.broker_epoch, [ctx](const cluster::controller::ControlledShutdownResult& result) {
        ctx.respond(cluster::controller::controlled_shutdown_response(result));
      });
}

}  // namespace spool::broker
