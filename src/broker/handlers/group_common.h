// Small helpers shared by the group API handlers (find_coordinator.cc,
// group_membership.cc, offset_commit.cc, offset_fetch.cc, groups_admin.cc).
// Pure functions over the request context.
#pragma once

#include <cstdint>
#include <string>

#include "broker/request_context.h"
#include "protocol/error_code.h"

namespace spool::broker {

// Kafka reports a member's host as InetAddress.toString(): "/ip".
inline std::string client_host(const RequestContext& ctx) { return "/" + std::string(ctx.client_address()); }

inline std::string client_id(const RequestContext& ctx) { return ctx.header.client_id.value_or(""); }

}  // namespace spool::broker
