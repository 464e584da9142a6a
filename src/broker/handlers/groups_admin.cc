// Group administration (classic groups, the only kind Spool has):
// With an authorizer (Kafka's checks): DescribeGroups needs DESCRIBE on the
// group (else GROUP_AUTHORIZATION_FAILED for it), ListGroups lists every
// group with DESCRIBE on the cluster and otherwise only those the principal
// may DESCRIBE, DeleteGroups needs DELETE on the group.
//  * DescribeGroups v0-6. Authorized operations (v3+) are INT32_MIN unless
//    asked for; when asked, the group operations (READ, DELETE, DESCRIBE)
//    the principal is allowed. v5 is flexible. An
//    unknown group answers state "Dead" with NONE before v6; from v6
//    (KIP-1043) GROUP_ID_NOT_FOUND and the ErrorMessage "Group <id> not
//    found.".
//  * ListGroups v0-5: v4 StatesFilter (case-insensitive state names); v5
//    TypesFilter (case-insensitive group types: only "classic" matches a
//    Spool group, so a filter without it lists nothing) and GroupType
//    "classic" in the answer.
//  * DeleteGroups v0-3: v2 is flexible; v3 has a per-group ErrorMessage,
//    which Kafka fills only for coordinator-level failures (a group's own
//    GROUP_ID_NOT_FOUND / NON_EMPTY_GROUP keep it null).
#include <algorithm>
#include <cctype>
#include <memory>

#include "broker/group_service.h"
#include "broker/handlers/authorize.h"
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

using security::AclOperation;
using security::ResourceType;

namespace {
constexpr const char* kClassicGroupType = "classic";

bool equals_ignore_case(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// DeleteGroups v3's message for a coordinator-level failure; null otherwise.
std::optional<std::string> delete_error_message(ErrorCode e) {
  switch (e) {
    case ErrorCode::kNone:
    case ErrorCode::kGroupIdNotFound:
    case ErrorCode::kNonEmptyGroup:
    case ErrorCode::kInvalidGroupId:
      return std::nullopt;
    case ErrorCode::kCoordinatorNotAvailable:
      return "The coordinator is not available.";
    case ErrorCode::kNotCoordinator:
      return "This is not the correct coordinator.";
    case ErrorCode::kCoordinatorLoadInProgress:
      return "The coordinator is loading and hence can't process requests.";
    default:
      return std::string(protocol::error_name(e));
  }
}
}  // namespace

void handle_describe_groups(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DescribeGroupsRequest req;
  if (!decode_or_close(ctx, body, req, "DescribeGroups")) return;
  const bool with_ops = ctx.version() >= 3 && req.include_authorized_operations;
  const bool not_found_error = ctx.version() >= 6;
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
  std::vector<std::string> authorized;
  for (const std::string& g : req.groups) {
    if (allowed(b, ctx, AclOperation::kDescribe, ResourceType::kGroup, g)) {
      authorized.push_back(g);
    } else {
      auto& out = resp.groups.emplace_back();
      out.error_code = ErrorCode::kGroupAuthorizationFailed;
      out.group_id = g;
    }
  }
  auto described = b.groups->coordinator().describe_groups(authorized);
  for (auto& g : described) {
    auto& out = resp.groups.emplace_back();
    out.error_code = g.error;
    if (not_found_error && g.error == ErrorCode::kNone && !g.exists) {
      out.error_code = ErrorCode::kGroupIdNotFound;
      out.error_message = "Group " + g.group_id + " not found.";
    }
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
    out.authorized_operations = with_ops && out.error_code == ErrorCode::kNone
                                    ? group_authorized_operations(b, ctx, out.group_id)
                                    : INT32_MIN;
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
  bool classic_wanted = true;
  if (ctx.version() >= 5 && !req.types_filter.empty()) {
    classic_wanted = std::any_of(req.types_filter.begin(), req.types_filter.end(),
                                 [](const std::string& t) { return equals_ignore_case(t, kClassicGroupType); });
  }
  if (!classic_wanted) groups.clear();
  const bool all = cluster_allowed(b, ctx, AclOperation::kDescribe);
  for (auto& g : groups) {
    if (!all && !allowed(b, ctx, AclOperation::kDescribe, ResourceType::kGroup, g.group_id)) continue;
    auto& out = resp.groups.emplace_back();
    out.group_id = std::move(g.group_id);
    out.protocol_type = std::move(g.protocol_type);
    out.group_state = std::move(g.state);
    out.group_type = kClassicGroupType;
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
      out.error_message = delete_error_message(out.error_code);
    }
    ctx.respond(resp);
    return;
  }
  std::vector<std::pair<std::string, ErrorCode>> refused;
  std::vector<std::string> authorized;
  for (const std::string& g : req.groups_names) {
    if (allowed(b, ctx, AclOperation::kDelete, ResourceType::kGroup, g)) {
      authorized.push_back(g);
    } else {
      refused.emplace_back(g, ErrorCode::kGroupAuthorizationFailed);
    }
  }
  b.groups->coordinator().delete_groups(authorized,
                                        [ctx, refused](std::vector<std::pair<std::string, ErrorCode>> results) {
                                          protocol::DeleteGroupsResponse resp;
                                          results.insert(results.begin(), refused.begin(), refused.end());
                                          for (auto& [id, e] : results) {
                                            auto& out = resp.results.emplace_back();
                                            out.group_id = std::move(id);
                                            out.error_code = e;
                                            out.error_message = delete_error_message(e);
                                          }
                                          ctx.respond(resp);
                                        });
}

}  // namespace spool::broker
