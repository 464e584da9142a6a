// Admin, cluster area: Metadata, leader elections, partition reassignments
// and log dirs (see admin.h).
#include "client/admin/admin_routing.h"
#include "protocol/metadata_request.h"

namespace spool::client {

using protocol::ErrorCode;

Result<protocol::MetadataResponse> Admin::metadata(std::optional<std::vector<std::string>> topics) {
  auto node = any_node();
  if (!node) return node.status();
  protocol::MetadataRequest req;
  req.allow_auto_topic_creation = false;
  if (topics) {
    req.topics = std::vector<protocol::MetadataRequest::MetadataRequestTopic>{};
    for (const auto& t : *topics) req.topics->emplace_back().name = t;
  } else {
    req.topics = std::nullopt;  // v1+: every topic
  }
  SendOptions opts;
  opts.min_version = 1;
  auto reply = call<protocol::MetadataRequest, protocol::MetadataResponse>(*node, req, opts);
  if (!reply) return reply.status();
  absorb(reply->message);
  return std::move(reply->message);
}

Result<protocol::ElectLeadersResponse> Admin::elect_leaders(const protocol::ElectLeadersRequest& request) {
  SendOptions opts;
  opts.min_version = 1;  // the election type
  auto reply = call_retrying<protocol::ElectLeadersRequest, protocol::ElectLeadersResponse>(
      [this] { return controller(); }, request, [](const auto& m) { return m.error_code; }, opts);
  if (!reply) return reply.status();
  return std::move(reply->message);
}

Result<protocol::AlterPartitionReassignmentsResponse> Admin::alter_partition_reassignments(
    const protocol::AlterPartitionReassignmentsRequest& request) {
  auto reply =
      call_retrying<protocol::AlterPartitionReassignmentsRequest, protocol::AlterPartitionReassignmentsResponse>(
          [this] { return controller(); }, request, [](const auto& m) { return m.error_code; });
  if (!reply) return reply.status();
  return std::move(reply->message);
}

Result<protocol::ListPartitionReassignmentsResponse> Admin::list_partition_reassignments(
    const protocol::ListPartitionReassignmentsRequest& request) {
  auto reply =
      call_retrying<protocol::ListPartitionReassignmentsRequest, protocol::ListPartitionReassignmentsResponse>(
          [this] { return controller(); }, request, [](const auto& m) { return m.error_code; });
  if (!reply) return reply.status();
  return std::move(reply->message);
}

Result<protocol::DescribeLogDirsResponse> Admin::describe_log_dirs(int32_t broker_id,
                                                                   const protocol::DescribeLogDirsRequest& request) {
  auto node = broker(broker_id);
  if (!node) return node.status();
  auto reply = call<protocol::DescribeLogDirsRequest, protocol::DescribeLogDirsResponse>(*node, request);
  if (!reply) return Status::error("broker " + std::to_string(broker_id) + ": " + reply.status().message(),
                                   reply.status().kafka_code());
  return std::move(reply->message);
}

}  // namespace spool::client
