// SyncGroup, Heartbeat and LeaveGroup (Kafka's handleSyncGroup,
// handleHeartbeat, handleLeaveGroup).
#include "coordinator/group/coordinator_impl.h"

namespace spool::coordinator {

void GroupCoordinator::Impl::sync(SyncGroupParams p, std::function<void(SyncGroupResult)> done) {
  if (p.group_id.empty()) return done(SyncGroupResult{ErrorCode::kInvalidGroupId, {}, {}, {}});
  if (ErrorCode e = status_for(p.group_id); e != ErrorCode::kNone) {
    // A loading coordinator lost the rebalance in flight: make the member
    // rejoin rather than rediscover the coordinator (as Kafka).
    if (e == ErrorCode::kCoordinatorLoadInProgress) e = ErrorCode::kRebalanceInProgress;
    return done(SyncGroupResult{e, {}, {}, {}});
  }
  std::shared_ptr<Group> g = get_group(p.group_id);
  if (!g) return done(SyncGroupResult{ErrorCode::kUnknownMemberId, {}, {}, {}});
  GroupLock gl(*g);
  auto answer = [&](ErrorCode e) { g->defer([done = std::move(done), e] { done(SyncGroupResult{e, {}, {}, {}}); }); };
  if (g->is(GroupState::kDead)) return answer(ErrorCode::kCoordinatorNotAvailable);
  if (g->is_static_member_fenced(p.member_id, p.group_instance_id)) return answer(ErrorCode::kFencedInstanceId);
  Member* m = g->get(p.member_id);
  if (!m) return answer(ErrorCode::kUnknownMemberId);
  if (p.generation_id != g->generation) return answer(ErrorCode::kIllegalGeneration);
  // KIP-559 (v5+): a given protocol type/name must be the group's.
  auto inconsistent = [](const std::optional<std::string>& given, const std::optional<std::string>& group) {
    return given && group && *given != *group;
  };
  if (inconsistent(p.protocol_type, g->protocol_type) || inconsistent(p.protocol_name, g->protocol_name)) {
    return answer(ErrorCode::kInconsistentGroupProtocol);
  }
  switch (g->state) {
    case GroupState::kEmpty:
      return answer(ErrorCode::kUnknownMemberId);
    case GroupState::kPreparingRebalance:
      return answer(ErrorCode::kRebalanceInProgress);
    case GroupState::kStable: {
      g->pending_sync_members.erase(p.member_id);
      SyncGroupResult r{ErrorCode::kNone, m->assignment, g->protocol_type, g->protocol_name};
      g->defer([done = std::move(done), r = std::move(r)]() mutable { done(std::move(r)); });
      schedule_heartbeat(g, *m, m->session_timeout_ms);
      return;
    }
    case GroupState::kCompletingRebalance:
      break;
    default:
      return answer(ErrorCode::kCoordinatorNotAvailable);
  }
  g->pending_sync_members.erase(p.member_id);
  // A duplicate sync from the same member replaces the earlier one.
  if (m->is_awaiting_sync()) g->invoke_sync(*m, SyncGroupResult{ErrorCode::kRebalanceInProgress, {}, {}, {}});
  m->awaiting_sync = std::move(done);
  if (!g->is_leader(p.member_id)) return;  // followers wait for the leader
  // Unknown member ids in the leader's plan are ignored; members it left
  // out get an empty assignment.
  auto assignment = std::make_shared<std::map<std::string, Bytes>>();
  for (const auto& [id, mm] : g->members) (*assignment)[id] = Bytes{};
  for (auto& [id, bytes] : p.assignments) {
    auto it = assignment->find(id);
    if (it != assignment->end()) it->second = std::move(bytes);
  }
  const int32_t generation = g->generation;
  // Persist before answering: the assignment survives a coordinator restart.
  store_group(g, assignment.get(), [this, g, assignment, generation](ErrorCode e) {
    GroupLock inner(*g);
    if (!g->is(GroupState::kCompletingRebalance) || g->generation != generation) return;
    if (e != ErrorCode::kNone) {
      reset_and_propagate_assignment_error(g, e);
      maybe_prepare_rebalance(g);
      return;
    }
    for (auto& [id, mm] : g->members) {
      auto it = assignment->find(id);
      mm->assignment = it == assignment->end() ? Bytes{} : it->second;
    }
    propagate_assignment(g, ErrorCode::kNone);
    g->transition_to(GroupState::kStable, wall_now());
  });
}

ErrorCode GroupCoordinator::Impl::heartbeat(const std::string& group_id, const std::string& member_id,
                                            const std::optional<std::string>& instance_id, int32_t generation) {
  if (group_id.empty()) return ErrorCode::kInvalidGroupId;
  if (ErrorCode e = status_for(group_id); e != ErrorCode::kNone) {
    // While loading, heartbeats are accepted blindly (Kafka): the member
    // learns about any rebalance once the group is back.
    return e == ErrorCode::kCoordinatorLoadInProgress ? ErrorCode::kNone : e;
  }
  std::shared_ptr<Group> g = get_group(group_id);
  if (!g) return ErrorCode::kUnknownMemberId;
  GroupLock gl(*g);
  if (g->is(GroupState::kDead)) return ErrorCode::kCoordinatorNotAvailable;
  if (g->is_static_member_fenced(member_id, instance_id)) return ErrorCode::kFencedInstanceId;
  Member* m = g->get(member_id);
  if (!m) return ErrorCode::kUnknownMemberId;
  if (generation != g->generation) return ErrorCode::kIllegalGeneration;
  switch (g->state) {
    case GroupState::kEmpty:
      return ErrorCode::kUnknownMemberId;
    case GroupState::kPreparingRebalance:
      schedule_heartbeat(g, *m, m->session_timeout_ms);
      return ErrorCode::kRebalanceInProgress;
    case GroupState::kCompletingRebalance:
    case GroupState::kStable:
      schedule_heartbeat(g, *m, m->session_timeout_ms);
      return ErrorCode::kNone;
    default:
      return ErrorCode::kCoordinatorNotAvailable;
  }
}

LeaveGroupResult GroupCoordinator::Impl::leave(const std::string& group_id, const std::vector<LeavingMember>& members) {
  LeaveGroupResult r;
  if (group_id.empty()) {
    r.error = ErrorCode::kInvalidGroupId;
    return r;
  }
  if (ErrorCode e = status_for(group_id); e != ErrorCode::kNone) {
    r.error = e;
    return r;
  }
  std::shared_ptr<Group> g = get_group(group_id);
  if (!g) {
    for (const auto& lm : members) r.members.emplace_back(lm, ErrorCode::kUnknownMemberId);
    return r;
  }
  GroupLock gl(*g);
  if (g->is(GroupState::kDead)) {
    r.error = ErrorCode::kCoordinatorNotAvailable;
    return r;
  }
  for (const auto& lm : members) {
    ErrorCode e = ErrorCode::kNone;
    if (lm.member_id.empty()) {
      // Admin removal by instance id (KIP-345).
      std::optional<std::string> current;
      if (lm.group_instance_id) current = g->static_member_id(*lm.group_instance_id);
      if (current) {
        remove_member_and_update_group(g, *current);
      } else {
        e = ErrorCode::kUnknownMemberId;
      }
    } else if (g->pending_members.count(lm.member_id)) {
      remove_pending_member(g, lm.member_id);
    } else if (g->is_static_member_fenced(lm.member_id, lm.group_instance_id)) {
      e = ErrorCode::kFencedInstanceId;
    } else if (g->has(lm.member_id)) {
      remove_member_and_update_group(g, lm.member_id);
    } else {
      e = ErrorCode::kUnknownMemberId;
    }
    r.members.emplace_back(lm, e);
  }
  return r;
}

}  // namespace spool::coordinator
