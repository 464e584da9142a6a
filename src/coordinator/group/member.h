// Member: one member of a classic consumer group as the coordinator sees it
// (Kafka's MemberMetadata).
// Ownership: owned by its Group (shared_ptr so timers can look it up by id).
// Threading: guarded by the owning group's lock; never touched without it.
// Failure: none; callers validate input before building a member.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/group/group_coordinator.h"
#include "util/bytes.h"

namespace spool::coordinator {

using ProtocolList = std::vector<std::pair<std::string, Bytes>>;

struct Member {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  std::string protocol_type;
  ProtocolList protocols;  // preference order
  Bytes assignment;
  std::function<void(JoinGroupResult)> awaiting_join;
  std::function<void(SyncGroupResult)> awaiting_sync;
  // New members joined in the current rebalance: their first join may time
  // out (Kafka's NewMemberJoinTimeoutMs) since they cannot heartbeat yet.
  bool is_new = false;
  bool heartbeat_satisfied = false;
  bool is_leaving = false;

  bool is_static() const { return group_instance_id.has_value(); }
  bool is_awaiting_join() const { return static_cast<bool>(awaiting_join); }
  bool is_awaiting_sync() const { return static_cast<bool>(awaiting_sync); }
  // Kafka: members waiting in a rebalance count as alive; new ones must
  // still finish their join within their own deadline.
  bool has_satisfied_heartbeat() const {
    if (is_new) return heartbeat_satisfied;
    if (is_awaiting_join() || is_awaiting_sync()) return true;
    return heartbeat_satisfied;
  }
  // Metadata the member sent for `protocol` (nullptr if it does not support it).
  const Bytes* metadata_for(const std::string& protocol) const;
  // Same protocol names and metadata in the same order.
  bool matches(const ProtocolList& other) const;
  // The member's first protocol that is among `candidates`.
  std::string vote(const std::set<std::string>& candidates) const;
};

}  // namespace spool::coordinator
