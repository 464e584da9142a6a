// The group membership APIs (classic groups): JoinGroup v0-9, SyncGroup
// v0-5, Heartbeat v0-4, LeaveGroup v0-5. The coordinator holds all group
// state; these handlers only translate between wire versions and its plain
// parameters:
//  * JoinGroup v0 has no rebalance timeout (the coordinator uses the session
//    timeout); v4+ asks for the MEMBER_ID_REQUIRED round trip; v5+ carries
//    static membership (group.instance.id); v6 is the first flexible
//    version; v7 answers the group's ProtocolType and a null ProtocolName
//    where older versions have "" (KIP-559); v8 carries a Reason (KIP-800),
//    logged; v9 (KIP-814): a static leader rejoining a Stable group without
//    a protocol change gets the members and SkipAssignment=true. A join
//    answers when the rebalance completes, possibly much later and from
//    another thread.
//  * SyncGroup v4 is flexible; v5 (KIP-559) requires ProtocolType and
//    ProtocolName (null: INCONSISTENT_GROUP_PROTOCOL before any group
//    lookup, as Kafka's areMandatoryProtocolTypeAndNamePresent), checks them
//    against the group's (INCONSISTENT_GROUP_PROTOCOL) and answers both on
//    success. Heartbeat v4 is flexible.
//  * LeaveGroup v0-2 name one member and report its error at the top level
//    (Kafka does so when the group-level error is NONE); v3 names a batch
//    and answers per member; v4 is flexible; v5 adds a per-member Reason
//    (KIP-800), logged.
// With an authorizer each needs READ on the group (Kafka's check), else the
// answer is GROUP_AUTHORIZATION_FAILED before the coordinator is asked.
#include <memory>

#include <spdlog/spdlog.h>

#include "broker/group_service.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/group_common.h"
#include "broker/handlers/handlers.h"
#include "protocol/heartbeat_request.h"
#include "protocol/heartbeat_response.h"
#include "protocol/join_group_request.h"
#include "protocol/join_group_response.h"
#include "protocol/leave_group_request.h"
#include "protocol/leave_group_response.h"
#include "protocol/sync_group_request.h"
#include "protocol/sync_group_response.h"

namespace spool::broker {

using protocol::ErrorCode;
using security::AclOperation;

void handle_join_group(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::JoinGroupRequest req;
  if (!decode_or_close(ctx, body, req, "JoinGroup")) return;
  const int16_t v = ctx.version();
  const bool permitted = group_allowed(b, ctx, AclOperation::kRead, req.group_id);
  if (b.groups == nullptr || !permitted) {
    protocol::JoinGroupResponse resp;
    resp.error_code = permitted ? ErrorCode::kCoordinatorNotAvailable : ErrorCode::kGroupAuthorizationFailed;
    resp.member_id = req.member_id;
    ctx.respond(resp);
    return;
  }
  coordinator::JoinGroupParams p;
  p.group_id = std::move(req.group_id);
  p.member_id = std::move(req.member_id);
  if (v >= 5) p.group_instance_id = std::move(req.group_instance_id);
  p.client_id = client_id(ctx);
  p.client_host = client_host(ctx);
  p.session_timeout_ms = req.session_timeout_ms;
  p.rebalance_timeout_ms = v >= 1 ? req.rebalance_timeout_ms : -1;
  p.protocol_type = std::move(req.protocol_type);
  p.protocols.reserve(req.protocols.size());
  for (auto& proto : req.protocols) p.protocols.emplace_back(std::move(proto.name), std::move(proto.metadata));
  p.require_known_member_id = v >= 4;
  p.supports_skip_assignment = v >= 9;
  if (v >= 8 && req.reason && !req.reason->empty()) {
    spdlog::info("JoinGroup: group {} member '{}' joins (reason: {})", p.group_id, p.member_id, *req.reason);
  }
  b.groups->coordinator().join_group(std::move(p), [ctx, v](coordinator::JoinGroupResult r) {
    protocol::JoinGroupResponse resp;
    resp.error_code = r.error;
    resp.generation_id = r.generation_id;
    // v7+: nullable protocol name, null instead of "" (Kafka's JoinGroupResponse).
    if (v >= 7 && r.protocol_name.empty()) {
      resp.protocol_name = std::nullopt;
    } else {
      resp.protocol_name = std::move(r.protocol_name);
    }
    resp.protocol_type = r.error == ErrorCode::kNone ? std::move(r.protocol_type) : std::nullopt;
    resp.leader = std::move(r.leader_id);
    resp.skip_assignment = r.skip_assignment;
    resp.member_id = std::move(r.member_id);
    resp.members.reserve(r.members.size());
    for (auto& m : r.members) {
      auto& out = resp.members.emplace_back();
      out.member_id = std::move(m.member_id);
      out.group_instance_id = std::move(m.group_instance_id);
      out.metadata = std::move(m.metadata);
    }
    ctx.respond(resp);
  });
}

void handle_sync_group(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::SyncGroupRequest req;
  if (!decode_or_close(ctx, body, req, "SyncGroup")) return;
  if (ctx.version() >= 5 && (!req.protocol_type || !req.protocol_name)) {
    protocol::SyncGroupResponse resp;
    resp.error_code = ErrorCode::kInconsistentGroupProtocol;
    ctx.respond(resp);
    return;
  }
  if (!group_allowed(b, ctx, AclOperation::kRead, req.group_id)) {
    protocol::SyncGroupResponse resp;
    resp.error_code = ErrorCode::kGroupAuthorizationFailed;
    ctx.respond(resp);
    return;
  }
  if (b.groups == nullptr) {
    protocol::SyncGroupResponse resp;
    resp.error_code = ErrorCode::kCoordinatorNotAvailable;
    ctx.respond(resp);
    return;
  }
  coordinator::SyncGroupParams p;
  p.group_id = std::move(req.group_id);
  p.generation_id = req.generation_id;
  p.member_id = std::move(req.member_id);
  if (ctx.version() >= 3) p.group_instance_id = std::move(req.group_instance_id);
  if (ctx.version() >= 5) {
    p.protocol_type = std::move(req.protocol_type);
    p.protocol_name = std::move(req.protocol_name);
  }
  p.assignments.reserve(req.assignments.size());
  for (auto& a : req.assignments) p.assignments.emplace_back(std::move(a.member_id), std::move(a.assignment));
  b.groups->coordinator().sync_group(std::move(p), [ctx](coordinator::SyncGroupResult r) {
    protocol::SyncGroupResponse resp;
    resp.error_code = r.error;
    resp.assignment = std::move(r.assignment);
    resp.protocol_type = std::move(r.protocol_type);
    resp.protocol_name = std::move(r.protocol_name);
    ctx.respond(resp);
  });
}

void handle_heartbeat(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::HeartbeatRequest req;
  if (!decode_or_close(ctx, body, req, "Heartbeat")) return;
  protocol::HeartbeatResponse resp;
  if (!group_allowed(b, ctx, AclOperation::kRead, req.group_id)) {
    resp.error_code = ErrorCode::kGroupAuthorizationFailed;
  } else if (b.groups == nullptr) {
    resp.error_code = ErrorCode::kCoordinatorNotAvailable;
  } else {
    std::optional<std::string> instance;
    if (ctx.version() >= 3) instance = req.group_instance_id;
    resp.error_code = b.groups->coordinator().heartbeat(req.group_id, req.member_id, instance, req.generation_id);
  }
  ctx.respond(resp);
}

void handle_leave_group(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::LeaveGroupRequest req;
  if (!decode_or_close(ctx, body, req, "LeaveGroup")) return;
  const int16_t v = ctx.version();
  std::vector<coordinator::LeavingMember> members;
  if (v >= 3) {
    members.reserve(req.members.size());
    for (auto& m : req.members) {
      if (v >= 5 && m.reason && !m.reason->empty()) {
        spdlog::info("LeaveGroup: group {} member '{}' leaves (reason: {})", req.group_id, m.member_id, *m.reason);
      }
      members.push_back({std::move(m.member_id), std::move(m.group_instance_id)});
    }
  } else {
    members.push_back({req.member_id, std::nullopt});
  }
  protocol::LeaveGroupResponse resp;
  const bool permitted = group_allowed(b, ctx, AclOperation::kRead, req.group_id);
  if (b.groups == nullptr || !permitted) {
    resp.error_code = permitted ? ErrorCode::kCoordinatorNotAvailable : ErrorCode::kGroupAuthorizationFailed;
    ctx.respond(resp);
    return;
  }
  auto result = b.groups->coordinator().leave_group(req.group_id, members);
  resp.error_code = result.error;
  if (v >= 3) {
    if (result.error == ErrorCode::kNone) {
      for (auto& [m, e] : result.members) {
        auto& out = resp.members.emplace_back();
        out.member_id = m.member_id;
        out.group_instance_id = m.group_instance_id;
        out.error_code = e;
      }
    }
  } else if (result.error == ErrorCode::kNone && !result.members.empty()) {
    resp.error_code = result.members.front().second;
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
