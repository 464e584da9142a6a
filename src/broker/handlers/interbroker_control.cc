// The controller's requests to this broker (cluster mode only; the rows in
// handler_table.h are advertised and served on a cluster member's listener
// only): LeaderAndIsr v0-7, StopReplica v0-4, UpdateMetadata v0-8, decoded
// by cluster/interbroker_wire.h. Each is answered from the admin executor,
// in arrival order (Kafka's replicaStateChangeLock serialises them too):
// 1. the epoch gate (ClusterMember::admit, cluster/epoch_fencing.h): a
//    request for an earlier registration of this broker gets
//    STALE_BROKER_EPOCH, one from an older controller STALE_CONTROLLER_EPOCH,
//    for the request and every partition, and nothing of it is applied;
// 2. UpdateMetadata -> MetadataCache::apply (refused, STALE_CONTROLLER_EPOCH,
//    when older than what the cache holds); LeaderAndIsr ->
//    ReplicaManager::become_leader_or_follower; StopReplica ->
//    ReplicaManager::stop_replicas (per-partition epochs checked inside).
// A body that does not decode closes the connection (as every handler); an
// UpdateMetadata with an unknown security protocol is answered
// INVALID_REQUEST. The executor refusing the job (full, shutting down)
// answers its error for the whole request.
#include <spdlog/spdlog.h>

#include <memory>

#include "broker/cluster_member.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/handlers.h"
#include "cluster/interbroker_wire.h"
#include "cluster/metadata_cache.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

ErrorCode status_code(const Status& s) { return static_cast<ErrorCode>(s.kafka_code()); }

template <typename Outcomes>
std::vector<cluster::PartitionErrorCode> to_errors(const Outcomes& outcomes) {
  std::vector<cluster::PartitionErrorCode> out;
  out.reserve(outcomes.size());
  for (const auto& o : outcomes) out.push_back({o.partition, o.error});
  return out;
}

void log_fenced(const char* api, ErrorCode e, int32_t controller_id, int32_t controller_epoch,
                int64_t broker_epoch, const ClusterMember& m) {
  spdlog::warn("{} from controller {} refused with {}: controller epoch {} (highest seen {}), broker epoch {} (ours {})",
               api, controller_id, protocol::error_name(e), controller_epoch, m.highest_controller_epoch(),
               broker_epoch, m.broker_epoch());
}

}  // namespace

void handle_leader_and_isr(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::LeaderAndIsrRequest req;
  if (!decode_or_close(ctx, body, req, "LeaderAndIsr")) return;
  const int16_t v = ctx.version();
  auto cmd = std::make_shared<cluster::LeaderAndIsrCommand>(cluster::decode_leader_and_isr(req, v));
  if (b.cluster == nullptr) {
    ctx.respond(cluster::leader_and_isr_error_response(*cmd, ErrorCode::kUnknownServerError, v));
    return;
  }
  run_admin_job(
      b, "LeaderAndIsr",
      [&b, ctx, cmd, v] {
        ErrorCode e = b.cluster->admit(cmd->controller_epoch, cmd->broker_epoch);
        if (e != ErrorCode::kNone) {
          log_fenced("LeaderAndIsr", e, cmd->controller_id, cmd->controller_epoch, cmd->broker_epoch, *b.cluster);
          ctx.respond(cluster::leader_and_isr_error_response(*cmd, e, v));
          return;
        }
        auto outcomes = b.replicas.become_leader_or_follower(*cmd, b.settings.broker_id);
        ctx.respond(cluster::leader_and_isr_response(*cmd, ErrorCode::kNone, to_errors(outcomes), v));
      },
      [ctx, cmd, v](const Status& s) { ctx.respond(cluster::leader_and_isr_error_response(*cmd, status_code(s), v)); });
}

void handle_stop_replica(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::StopReplicaRequest req;
  if (!decode_or_close(ctx, body, req, "StopReplica")) return;
  auto cmd = std::make_shared<cluster::StopReplicaCommand>(cluster::decode_stop_replica(req, ctx.version()));
  if (b.cluster == nullptr) {
    ctx.respond(cluster::stop_replica_error_response(*cmd, ErrorCode::kUnknownServerError));
    return;
  }
  run_admin_job(
      b, "StopReplica",
      [&b, ctx, cmd] {
        ErrorCode e = b.cluster->admit(cmd->controller_epoch, cmd->broker_epoch);
        if (e != ErrorCode::kNone) {
          log_fenced("StopReplica", e, cmd->controller_id, cmd->controller_epoch, cmd->broker_epoch, *b.cluster);
          ctx.respond(cluster::stop_replica_error_response(*cmd, e));
          return;
        }
        auto outcomes = b.replicas.stop_replicas(*cmd);
        ctx.respond(cluster::stop_replica_response(ErrorCode::kNone, to_errors(outcomes)));
      },
      [ctx, cmd](const Status& s) { ctx.respond(cluster::stop_replica_error_response(*cmd, status_code(s))); });
}

void handle_update_metadata(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::UpdateMetadataRequest req;
  if (!decode_or_close(ctx, body, req, "UpdateMetadata")) return;
  auto decoded = cluster::decode_update_metadata(req, ctx.version());
  if (!decoded) {
    spdlog::warn("UpdateMetadata v{} refused: {}", ctx.version(), decoded.status().message());
    ctx.respond(cluster::update_metadata_response(ErrorCode::kInvalidRequest));
    return;
  }
  if (b.cluster == nullptr || b.metadata == nullptr) {
    ctx.respond(cluster::update_metadata_response(ErrorCode::kUnknownServerError));
    return;
  }
  auto cmd = std::make_shared<cluster::UpdateMetadataCommand>(std::move(*decoded));
  run_admin_job(
      b, "UpdateMetadata",
      [&b, ctx, cmd] {
        ErrorCode e = b.cluster->admit(cmd->controller_epoch, cmd->broker_epoch);
        if (e != ErrorCode::kNone) {
          log_fenced("UpdateMetadata", e, cmd->controller_id, cmd->controller_epoch, cmd->broker_epoch, *b.cluster);
          ctx.respond(cluster::update_metadata_response(e));
          return;
        }
        if (!b.metadata->apply(cmd->update)) {
          log_fenced("UpdateMetadata", ErrorCode::kStaleControllerEpoch, cmd->controller_id, cmd->controller_epoch,
                     cmd->broker_epoch, *b.cluster);
          ctx.respond(cluster::update_metadata_response(ErrorCode::kStaleControllerEpoch));
          return;
        }
        spdlog::debug("UpdateMetadata from controller {} (epoch {}): {} partition state(s), {} live broker(s)",
                      cmd->controller_id, cmd->controller_epoch, cmd->update.partitions.size(),
                      cmd->update.live_brokers.size());
        ctx.respond(cluster::update_metadata_response(ErrorCode::kNone));
      },
      [ctx](const Status& s) { ctx.respond(cluster::update_metadata_response(status_code(s))); });
}

}  // namespace spool::broker
