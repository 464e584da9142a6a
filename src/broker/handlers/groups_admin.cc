// Group administration: DescribeGroups v0-4, ListGroups v0-4 (states filter
// from v4), DeleteGroups v0-1. Authorized operations (DescribeGroups v3+) are
// INT32_MIN unless asked for; when asked, every group operation (READ,
// DELETE, DESCRIBE) is allowed, as Kafka answers without an authorizer.
#include <memory>

#include "broker/group_service.h"
#include "broker/handlers/group_common.h"
#include "broker/handlers/handlers.h"
#include "protocol/delete_groups_request.h"
#include "protocol/delete_groups_response.h"
#include "protocol/describe_groups_request.h"
#include "protocol/describe_groups_response.h"
#include "protocol/list_groups_request.h"
#include "protocol/list_groups_response.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {
// AclOperation codes READ (3), DELETE (6), DESCRIBE (8) as a bit field.
constexpr int32_t kGroupOperations = (1 << 3) | (1 << 6) | (1 << 8);
}  // namespace

void handle_describe_groups(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DescribeGroupsRequest req;
  if (!decode_or_close(ctx, body, req, "DescribeGroups")) return;
  const bool with_ops = ctx.version() >= 3 && req.include_authorized_operations;
  protocol::DescribeGroupsResponse resp;
  if (b.groups == nullptr) {
    for (const auto& g : req.groups) {
      auto& out = resp.groups.emplace_back();
      out.error_code = ErrorCode::kCoordinatorNotAvailable;
      out.group_id = g;
    }
    ctx.respond(resp);
    return;
  }
  auto described = b.groups->coordinator().describe_groups(req.groups);
  for (auto& g : described) {
    auto& out = resp.groups.emplace_back();
    out.error_code = g.error;
    out.group_id = std::move(g.group_id);
    out.group_state = std::move(g.state);
    out.protocol_type = std::move(g.protocol_type);
    out.protocol_data = std::move(g.protocol_name);
    for (auto& m : g.members) {
      auto& om = out.members.emplace_back();
      om.member_id = std::move(m.member_id);
      om.group_instance_id = std::move(m.group_instance_id);
      om.client_id = std::move(m.client_id);
      om.client_host = std::move(m.client_host);
      om.member_metadata = std::move(m.metadata);
      om.member_assignment = std::move(m.assignment);
    }
    out.authorized_operations = with_ops && g.error == ErrorCode::kNone ? kGroupOperations : INT32_MIN;
  }
  ctx.respond(resp);
}

void handle_list_groups(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::ListGroupsRequest req;
  if (!decode_or_close(ctx, body, req, "ListGroups")) return;
  protocol::ListGroupsResponse resp;
  if (b.groups == nullptr) {
    resp.error_code = ErrorCode::kCoordinatorNotAvailable;
    ctx.respond(resp);
    return;
  }
  auto [error, groups] =
      b.groups->coordinator().list_groups(ctx.version() >= 4 ? req.states_filter : std::vector<std::string>{});
  resp.error_code = error;
  for (auto& g : groups) {
    auto& out = resp.groups.emplace_back();
    out.group_id = std::move(g.group_id);
    out.protocol_type = std::move(g.protocol_type);
    out.group_state = std::move(g.state);
  }
  ctx.respond(resp);
}

void handle_delete_groups(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DeleteGroupsRequest req;
  if (!decode_or_close(ctx, body, req, "DeleteGroups")) return;
  if (b.groups == nullptr) {
    protocol::DeleteGroupsResponse resp;
    for (const auto& g : req.groups_names) {
      auto& out = resp.results.emplace_back();
      out.group_id = g;
      out.error_code = ErrorCode::kCoordinatorNotAvailable;
    }
    ctx.respond(resp);
    return;
  }
  b.groups->coordinator().delete_groups(req.groups_names,
                                        [ctx](std::vector<std::pair<std::string, ErrorCode>> results) {
                                          protocol::DeleteGroupsResponse resp;
                                          for (auto& [id, e] : results) {
                                            auto& out = resp.results.emplace_back();
                                            out.group_id = std::move(id);
                                            out.error_code = e;
                                          }
                                          ctx.respond(resp);
                                        });
}

}  // namespace spool::broker
