// AlterPartitionReassignments v0-1 and ListPartitionReassignments v0
// (KIP-455), as Kafka's ZooKeeper-mode KafkaApis serves them: handed to the
// local Controller when it is the active one
// (cluster/controller/controller_reassign.cc has the rules), else answered
// NOT_CONTROLLER at the top level (the admin client sends them to the
// controller). A single node has no controller: NOT_CONTROLLER as well would
// send clients looking for one for ever, so it answers what Kafka answers on
// a one-broker cluster: Alter validates each partition (unknown:
// UNKNOWN_TOPIC_OR_PARTITION; a target other than [this broker]:
// INVALID_REPLICA_ASSIGNMENT, no other broker is alive; [this broker]: NONE,
// nothing to move; null: NO_REASSIGNMENT_IN_PROGRESS) and List answers none.
// A partition named twice in one Alter request answers INVALID_REQUEST for
// both, as Kafka does.
#include <map>
#include <memory>
#include <set>

#include "broker/cluster_member.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/topic_entries.h"
#include "broker/replica_manager.h"
#include "protocol/alter_partition_reassignments_request.h"
#include "protocol/alter_partition_reassignments_response.h"
#include "protocol/list_partition_reassignments_request.h"
#include "protocol/list_partition_reassignments_response.h"

namespace spool::broker {

using protocol::ErrorCode;
using cluster::controller::ReassignmentItem;
using cluster::controller::ReassignmentResult;

namespace {

using AlterResponse = protocol::AlterPartitionReassignmentsResponse;

cluster::controller::Controller* active_controller(BrokerContext& b) {
  cluster::controller::Controller* c = b.cluster != nullptr ? b.cluster->controller() : nullptr;
  return c != nullptr && c->is_active() ? c : nullptr;
}

AlterResponse alter_response(ErrorCode top, const std::vector<ReassignmentResult>& results) {
  AlterResponse resp;
  resp.error_code = top;
  TopicEntries topics(resp.responses, &AlterResponse::ReassignableTopicResponse::name);
  for (const auto& r : results) {
    auto& p = topics[r.partition.topic].partitions.emplace_back();
    p.partition_index = r.partition.partition;
    p.error_code = r.error;
    if (!r.message.empty()) p.error_message = r.message;
  }
  return resp;
}

// One node: the only replica set there can be is [this broker].
ReassignmentResult single_node(BrokerContext& b, const ReassignmentItem& item) {
  ReassignmentResult r{item.partition, ErrorCode::kNone, {}};
  if (!b.replicas.partition(item.partition)) {
    r.error = ErrorCode::kUnknownTopicOrPartition;
    r.message = "The partition does not exist.";
  } else if (!item.replicas) {
    r.error = ErrorCode::kNoReassignmentInProgress;
  } else if (*item.replicas != std::vector<int32_t>{b.settings.broker_id}) {
    r.error = ErrorCode::kInvalidReplicaAssignment;
    r.message = "Replica assignment has brokers that are not alive. Live broker list: " +
                std::to_string(b.settings.broker_id);
  }
  return r;
}

}  // namespace

void handle_alter_partition_reassignments(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::AlterPartitionReassignmentsRequest req;
  if (!decode_or_close(ctx, body, req, "AlterPartitionReassignments")) return;
  const bool allow_rf_change = ctx.version() < 1 || req.allow_replication_factor_change;
  std::map<TopicPartition, int> count;
  for (const auto& t : req.topics)
    for (const auto& p : t.partitions) ++count[TopicPartition(t.name, p.partition_index)];
  std::vector<ReassignmentItem> items;
  std::vector<ReassignmentResult> refused;  // named twice
  for (const auto& t : req.topics) {
    for (const auto& p : t.partitions) {
      TopicPartition tp(t.name, p.partition_index);
      if (count[tp] > 1) {
        refused.push_back(ReassignmentResult{tp, ErrorCode::kInvalidRequest, "Duplicate partition in the request."});
        continue;
      }
      items.push_back(ReassignmentItem{tp, p.replicas});
    }
  }
  auto respond = [ctx, refused, v = ctx.version(), allow_rf_change](ErrorCode top,
                                                                     std::vector<ReassignmentResult> results) {
    results.insert(results.end(), refused.begin(), refused.end());
    AlterResponse resp = alter_response(top, results);
    if (v >= 1) resp.allow_replication_factor_change = allow_rf_change;
    ctx.respond(resp);
  };
  if (!cluster_allowed(b, ctx, security::AclOperation::kAlter)) {  // Kafka's check
    AlterResponse resp;
    resp.error_code = ErrorCode::kClusterAuthorizationFailed;
    return ctx.respond(resp);
  }
  if (b.cluster == nullptr) {
    std::vector<ReassignmentResult> results;
    for (const auto& item : items) results.push_back(single_node(b, item));
    return respond(ErrorCode::kNone, std::move(results));
  }
  cluster::controller::Controller* controller = active_controller(b);
  if (controller == nullptr) {
    AlterResponse resp;
    resp.error_code = ErrorCode::kNotController;
    return ctx.respond(resp);
  }
  controller->alter_partition_reassignments(
      std::move(items), allow_rf_change,
      [respond](ErrorCode top, const std::vector<ReassignmentResult>& results) {
        if (top != ErrorCode::kNone) return respond(top, {});
        respond(top, results);
      });
}

void handle_list_partition_reassignments(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::ListPartitionReassignmentsRequest req;
  if (!decode_or_close(ctx, body, req, "ListPartitionReassignments")) return;
  protocol::ListPartitionReassignmentsResponse resp;
  resp.error_code = cluster_allowed(b, ctx, security::AclOperation::kDescribe) ? ErrorCode::kNone
                                                                               : ErrorCode::kClusterAuthorizationFailed;
  if (b.cluster == nullptr || resp.error_code != ErrorCode::kNone) return ctx.respond(resp);
  cluster::controller::Controller* controller = active_controller(b);
  if (controller == nullptr) {
    resp.error_code = ErrorCode::kNotController;
    return ctx.respond(resp);
  }
  std::optional<std::vector<TopicPartition>> wanted;
  if (req.topics) {
    wanted.emplace();
    for (const auto& t : *req.topics)
      for (int32_t p : t.partition_indexes) wanted->emplace_back(t.name, p);
  }
  controller->list_partition_reassignments(
      std::move(wanted),
      [ctx](ErrorCode top, const std::vector<cluster::controller::OngoingReassignment>& ongoing) {
        protocol::ListPartitionReassignmentsResponse out;
        out.error_code = top;
        TopicEntries topics(out.topics, &protocol::ListPartitionReassignmentsResponse::OngoingTopicReassignment::name);
        for (const auto& o : ongoing) {
          auto& p = topics[o.partition.topic].partitions.emplace_back();
          p.partition_index = o.partition.partition;
          p.replicas = o.replicas;
          p.adding_replicas = o.adding;
          p.removing_replicas = o.removing;
        }
        ctx.respond(out);
      });
}

}  // namespace spool::broker
