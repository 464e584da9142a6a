// JoinGroup / SyncGroup / Heartbeat / LeaveGroup and the rebalance timers,
// following Kafka's GroupCoordinator (classic protocol).
#include <algorithm>
#include <random>

#include "coordinator/group/coordinator_impl.h"
#include "coordinator/group/delayed_group_op.h"
#include "coordinator/group/group_records.h"

namespace spool::coordinator {
namespace {

std::string random_suffix() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) s += '-';
    s += kHex[rng() & 15];
  }
  return s;
}

JoinGroupResult join_error(ErrorCode e, const std::string& member_id) {
  JoinGroupResult r;
  r.error = e;
  r.member_id = member_id;
  return r;
}

// Kafka's acceptJoiningMember: group.max.size counts members (and, while
// preparing, only those that rejoined).
bool accept_joining_member(const Group& g, const std::string& member_id, int32_t max_size) {
  switch (g.state) {
    case GroupState::kEmpty:
    case GroupState::kDead:
      return true;
    case GroupState::kPreparingRebalance: {
      const Member* m = g.get(member_id);
      return (m && m->is_awaiting_join()) || g.num_awaiting_join < max_size;
    }
    default:
      return g.has(member_id) || static_cast<int64_t>(g.members.size()) < max_size;
  }
}

}  // namespace

void GroupCoordinator::Impl::join(JoinGroupParams p, std::function<void(JoinGroupResult)> done) {
  if (p.group_id.empty()) return done(join_error(ErrorCode::kInvalidGroupId, p.member_id));
  if (ErrorCode e = status_for(p.group_id); e != ErrorCode::kNone) return done(join_error(e, p.member_id));
  if (p.session_timeout_ms < opts.group_min_session_timeout_ms ||
      p.session_timeout_ms > opts.group_max_session_timeout_ms) {
    return done(join_error(ErrorCode::kInvalidSessionTimeout, p.member_id));
  }
  if (p.rebalance_timeout_ms < 0) p.rebalance_timeout_ms = p.session_timeout_ms;
  const bool unknown = p.member_id.empty();
  std::shared_ptr<Group> g = get_or_create_group(p.group_id, unknown);
  if (!g) return done(join_error(ErrorCode::kUnknownMemberId, p.member_id));
  GroupLock gl(*g);
  if (!accept_joining_member(*g, p.member_id, opts.group_max_size)) {
    if (auto m = g->remove(p.member_id)) {
      heartbeat_purgatory.check_and_complete(member_key(*g, p.member_id));
    }
    g->defer([done = std::move(done), id = p.member_id] { done(join_error(ErrorCode::kGroupMaxSizeReached, id)); });
  } else if (unknown) {
    do_new_member_join(g, p, done);
  } else {
    do_current_member_join(g, p, done);
  }
  if (g->is(GroupState::kPreparingRebalance)) join_purgatory.check_and_complete(join_key(*g));
}

void GroupCoordinator::Impl::do_new_member_join(const std::shared_ptr<Group>& g, JoinGroupParams& p,
                                                std::function<void(JoinGroupResult)>& done) {
  auto answer = [&](ErrorCode e, std::string id) {
    g->defer([done = std::move(done), e, id = std::move(id)] { done(join_error(e, id)); });
  };
  if (g->is(GroupState::kDead)) return answer(ErrorCode::kCoordinatorNotAvailable, p.member_id);
  if (!g->supports_protocols(p.protocol_type, p.protocols)) {
    return answer(ErrorCode::kInconsistentGroupProtocol, p.member_id);
  }
  const std::string new_id = (p.group_instance_id ? *p.group_instance_id : p.client_id) + "-" + random_suffix();
  if (p.group_instance_id) {
    if (auto old = g->static_member_id(*p.group_instance_id)) {
      return update_static_member_and_rebalance(g, *old, new_id, p, std::move(done));
    }
    return add_member_and_rebalance(g, new_id, p, std::move(done));
  }
  if (p.require_known_member_id) {
    // KIP-394: hand out the id first so a client that times out does not
    // leave a ghost member behind; it must come back within the session.
    g->pending_members.insert(new_id);
    schedule_pending_member_expiry(g, new_id, p.session_timeout_ms);
    return answer(ErrorCode::kMemberIdRequired, new_id);
  }
  add_member_and_rebalance(g, new_id, p, std::move(done));
}

void GroupCoordinator::Impl::do_current_member_join(const std::shared_ptr<Group>& g, JoinGroupParams& p,
                                                    std::function<void(JoinGroupResult)>& done) {
  auto answer = [&](ErrorCode e) {
    g->defer([done = std::move(done), e, id = p.member_id] { done(join_error(e, id)); });
  };
  if (g->is(GroupState::kDead)) return answer(ErrorCode::kCoordinatorNotAvailable);
  if (!g->supports_protocols(p.protocol_type, p.protocols)) return answer(ErrorCode::kInconsistentGroupProtocol);
  if (g->pending_members.count(p.member_id)) {
    if (p.group_instance_id) return answer(ErrorCode::kUnknownMemberId);  // pending members are never static
    return add_member_and_rebalance(g, p.member_id, p, std::move(done));
  }
  const bool instance_unknown = p.group_instance_id && !g->static_member_id(*p.group_instance_id);
  if (g->is_static_member_fenced(p.member_id, p.group_instance_id)) return answer(ErrorCode::kFencedInstanceId);
  if (!g->has(p.member_id) || instance_unknown) return answer(ErrorCode::kUnknownMemberId);
  Member& m = *g->get(p.member_id);
  m.client_id = p.client_id;
  m.client_host = p.client_host;
  m.session_timeout_ms = p.session_timeout_ms;
  m.rebalance_timeout_ms = p.rebalance_timeout_ms;
  auto same_generation_answer = [&] {
    JoinGroupResult r;
    r.generation_id = g->generation;
    r.protocol_name = g->protocol_name.value_or("");
    r.protocol_type = g->protocol_type;
    r.leader_id = g->leader_id.value_or("");
    r.member_id = m.member_id;
    if (g->is_leader(m.member_id)) r.members = g->current_member_metadata();
    g->defer([done = std::move(done), r = std::move(r)]() mutable { done(std::move(r)); });
  };
  switch (g->state) {
    case GroupState::kPreparingRebalance:
      g->update_member(m, p.protocols, std::move(done));
      maybe_prepare_rebalance(g);
      return;
    case GroupState::kCompletingRebalance:
      // Same metadata: the member probably lost our join answer; repeat it.
      if (m.matches(p.protocols)) return same_generation_answer();
      g->update_member(m, p.protocols, std::move(done));
      maybe_prepare_rebalance(g);
      return;
    case GroupState::kStable:
      // A leader rejoining asks for a new assignment (e.g. metadata change).
      if (g->is_leader(m.member_id) || !m.matches(p.protocols)) {
        g->update_member(m, p.protocols, std::move(done));
        maybe_prepare_rebalance(g);
        return;
      }
      return same_generation_answer();
    default:
      return answer(ErrorCode::kUnknownMemberId);
  }
}

void GroupCoordinator::Impl::add_member_and_rebalance(const std::shared_ptr<Group>& g, const std::string& member_id,
                                                      JoinGroupParams& p, std::function<void(JoinGroupResult)> done) {
  auto m = std::make_shared<Member>();
  m->member_id = member_id;
  m->group_instance_id = p.group_instance_id;
  m->client_id = p.client_id;
  m->client_host = p.client_host;
  m->session_timeout_ms = p.session_timeout_ms;
  m->rebalance_timeout_ms = p.rebalance_timeout_ms;
  m->protocol_type = p.protocol_type;
  m->protocols = p.protocols;
  m->is_new = true;
  if (g->is(GroupState::kPreparingRebalance) && g->generation == 0) g->new_member_added = true;
  Member& ref = *m;
  g->add(std::move(m), std::move(done));
  schedule_heartbeat(g, ref, kNewMemberJoinTimeoutMs);
  maybe_prepare_rebalance(g);
}

void GroupCoordinator::Impl::update_static_member_and_rebalance(const std::shared_ptr<Group>& g,
                                                                const std::string& old_id, const std::string& new_id,
                                                                JoinGroupParams& p,
                                                                std::function<void(JoinGroupResult)> done) {
  const std::optional<std::string> old_leader = g->leader_id;
  const std::string instance = *p.group_instance_id;
  Member* m = g->replace_static_member(instance, old_id, new_id);
  if (!m) {
    g->defer([done = std::move(done), new_id] { done(join_error(ErrorCode::kUnknownMemberId, new_id)); });
    return;
  }
  heartbeat_purgatory.check_and_complete(member_key(*g, old_id));  // the old id's timer is moot
  schedule_heartbeat(g, *m, m->session_timeout_ms);
  ProtocolList old_protocols = m->protocols;
  const int32_t old_session = m->session_timeout_ms, old_rebalance = m->rebalance_timeout_ms;
  m->session_timeout_ms = p.session_timeout_ms;
  m->rebalance_timeout_ms = p.rebalance_timeout_ms;
  m->client_id = p.client_id;
  m->client_host = p.client_host;
  g->update_member(*m, p.protocols, std::move(done));
  switch (g->state) {
    case GroupState::kStable: {
      if (g->protocol_name != g->select_protocol()) {
        maybe_prepare_rebalance(g);
        return;
      }
      // Same protocol: no rebalance; persist the new member id and give the
      // member its current assignment. Before v9 the old leader id is
      // reported so a restarted static leader does not recompute
      // assignments; from v9 (KIP-814) the leader learns it leads, gets the
      // members and skip_assignment, and syncs without assigning.
      const int32_t generation = g->generation;
      const bool skip = p.supports_skip_assignment;
      store_group(g, nullptr, [this, g, instance, old_id, new_id, old_leader, old_protocols, old_session, old_rebalance,
                               generation, skip](ErrorCode e) {
        GroupLock gl(*g);
        Member* mm = g->get(new_id);
        if (!mm) return;
        if (e != ErrorCode::kNone) {
          // Undo the replacement so the previous incarnation stays valid.
          auto cb = std::move(mm->awaiting_join);
          g->update_member(*mm, old_protocols, nullptr);
          mm->session_timeout_ms = old_session;
          mm->rebalance_timeout_ms = old_rebalance;
          g->replace_static_member(instance, new_id, old_id);
          if (cb) g->defer([cb = std::move(cb), e, new_id] { cb(join_error(e, new_id)); });
          return;
        }
        JoinGroupResult r;
        r.generation_id = generation;
        r.protocol_name = g->protocol_name.value_or("");
        r.protocol_type = g->protocol_type;
        r.leader_id = old_leader.value_or("");
        r.member_id = new_id;
        if (skip) {
          r.leader_id = g->leader_id.value_or("");
          r.skip_assignment = g->is_leader(new_id);
          if (r.skip_assignment) r.members = g->current_member_metadata();
        }
        g->invoke_join(*mm, std::move(r));
      });
      return;
    }
    case GroupState::kCompletingRebalance:
      // The leader may be assigning for the old id: start over.
      prepare_rebalance(g);
      return;
    case GroupState::kPreparingRebalance:
      return;
    default:
      maybe_prepare_rebalance(g);
      return;
  }
}

void GroupCoordinator::Impl::maybe_prepare_rebalance(const std::shared_ptr<Group>& g) {
  if (g->can_rebalance()) prepare_rebalance(g);
}

void GroupCoordinator::Impl::prepare_rebalance(const std::shared_ptr<Group>& g) {
  if (g->is(GroupState::kCompletingRebalance)) reset_and_propagate_assignment_error(g, ErrorCode::kRebalanceInProgress);
  g->pending_sync_members.clear();  // the pending-sync timer of the old generation is moot
  const bool was_empty = g->is(GroupState::kEmpty);
  g->transition_to(GroupState::kPreparingRebalance, wall_now());
  if (was_empty) {
    const int64_t delay = opts.group_initial_rebalance_delay_ms;
    schedule_initial_join(g, delay, std::max<int64_t>(g->rebalance_timeout_ms() - delay, 0));
  } else {
    schedule_join(g, g->rebalance_timeout_ms());
  }
}

void GroupCoordinator::Impl::schedule_initial_join(const std::shared_ptr<Group>& g, int64_t delay_ms,
                                                   int64_t remaining_ms) {
  const int64_t configured = opts.group_initial_rebalance_delay_ms;
  auto op = std::make_shared<DelayedGroupOp>(delay_ms, g->lock, nullptr, [this, g, delay_ms, remaining_ms,
                                                                          configured](bool) {
    GroupLock gl(*g);
    if (shutting_down.load() || !g->is(GroupState::kPreparingRebalance)) return;
    // Every new member extends the wait, within the rebalance timeout.
    if (g->new_member_added && remaining_ms != 0) {
      g->new_member_added = false;
      const int64_t next = std::min(configured, remaining_ms);
      schedule_initial_join(g, next, std::max<int64_t>(remaining_ms - next, 0));
      return;
    }
    on_complete_join(g);
  });
  join_purgatory.try_complete_else_watch(op, {join_key(*g)});
}

void GroupCoordinator::Impl::schedule_join(const std::shared_ptr<Group>& g, int64_t delay_ms) {
  auto op = std::make_shared<DelayedGroupOp>(
      delay_ms, g->lock, [g] { return g->all_members_joined(); },
      [this, g](bool) {
        GroupLock gl(*g);
        if (shutting_down.load() || !g->is(GroupState::kPreparingRebalance)) return;
        on_complete_join(g);
      });
  join_purgatory.try_complete_else_watch(op, {join_key(*g)});
}

void GroupCoordinator::Impl::on_complete_join(const std::shared_ptr<Group>& g) {
  GroupLock gl(*g);
  // Dynamic members that did not rejoin in time leave; static ones stay
  // (they may come back with the same instance id).
  std::vector<std::string> gone;
  for (const auto& [id, m] : g->members) {
    if (!m->is_awaiting_join() && !m->is_static()) gone.push_back(id);
  }
  for (const auto& id : gone) {
    if (auto m = g->remove(id)) {
      m->is_leaving = true;
      g->invoke_sync(*m, SyncGroupResult{ErrorCode::kUnknownMemberId, {}, {}, {}});
      heartbeat_purgatory.check_and_complete(member_key(*g, id));
    }
  }
  if (!g->maybe_elect_new_joined_leader() && !g->members.empty()) {
    // Nobody rejoined: wait another round; session expiry clears the rest.
    schedule_join(g, g->rebalance_timeout_ms());
    return;
  }
  g->init_next_generation(wall_now());
  if (g->is(GroupState::kEmpty)) {
    store_group(g, nullptr, [](ErrorCode) {});
    return;
  }
  for (const auto& [id, m] : g->members) {
    JoinGroupResult r;
    r.generation_id = g->generation;
    r.protocol_name = g->protocol_name.value_or("");
    r.protocol_type = g->protocol_type;
    r.leader_id = g->leader_id.value_or("");
    r.member_id = id;
    if (g->is_leader(id)) r.members = g->current_member_metadata();
    g->invoke_join(*m, std::move(r));
    schedule_heartbeat(g, *m, m->session_timeout_ms);
    m->is_new = false;
  }
  schedule_pending_sync(g);
}

void GroupCoordinator::Impl::schedule_pending_sync(const std::shared_ptr<Group>& g) {
  g->pending_sync_members.clear();
  for (const auto& [id, m] : g->members) g->pending_sync_members.insert(id);
  const int32_t generation = g->generation;
  auto in_sync_phase = [g, generation] {
    return g->generation == generation &&
           (g->is(GroupState::kCompletingRebalance) || g->is(GroupState::kStable));
  };
  // A member that heartbeats but never syncs would hold the group in
  // CompletingRebalance forever (or stay without an assignment): after the
  // rebalance timeout it is removed and the group rebalances (Kafka's
  // DelayedSync). Only timed; the check at expiry decides.
  auto op = std::make_shared<DelayedGroupOp>(
      g->rebalance_timeout_ms(), g->lock, [g, in_sync_phase] { return !in_sync_phase() || g->pending_sync_members.empty(); },
      [this, g, in_sync_phase](bool expired) {
        if (!expired) return;
        GroupLock gl(*g);
        if (shutting_down.load() || !in_sync_phase()) return;
        const std::set<std::string> silent = g->pending_sync_members;
        for (const auto& id : silent) remove_member_and_update_group(g, id);
      });
  join_purgatory.try_complete_else_watch(op, {});
}

void GroupCoordinator::Impl::schedule_heartbeat(const std::shared_ptr<Group>& g, Member& m, int64_t timeout_ms) {
  const MemberKey key = member_key(*g, m.member_id);
  // Completes the previous deadline, then arms the next one.
  m.heartbeat_satisfied = true;
  heartbeat_purgatory.check_and_complete(key);
  m.heartbeat_satisfied = false;
  const std::string id = m.member_id;
  auto op = std::make_shared<DelayedGroupOp>(
      timeout_ms, g->lock,
      [g, id] {
        if (g->is(GroupState::kDead)) return true;
        const Member* mm = g->get(id);
        return !mm || mm->has_satisfied_heartbeat() || mm->is_leaving;
      },
      [this, g, id](bool expired) {
        if (expired) on_expire_heartbeat(g, id);
      });
  heartbeat_purgatory.try_complete_else_watch(op, {key});
}

void GroupCoordinator::Impl::schedule_pending_member_expiry(const std::shared_ptr<Group>& g,
                                                            const std::string& member_id, int64_t timeout_ms) {
  auto op = std::make_shared<DelayedGroupOp>(
      timeout_ms, g->lock,
      [g, member_id] { return g->is(GroupState::kDead) || g->pending_members.count(member_id) == 0; },
      [this, g, member_id](bool expired) {
        if (!expired) return;
        GroupLock gl(*g);
        if (shutting_down.load() || g->is(GroupState::kDead)) return;
        if (g->pending_members.count(member_id)) remove_pending_member(g, member_id);
      });
  heartbeat_purgatory.try_complete_else_watch(op, {member_key(*g, member_id)});
}

void GroupCoordinator::Impl::on_expire_heartbeat(const std::shared_ptr<Group>& g, const std::string& member_id) {
  GroupLock gl(*g);
  if (shutting_down.load() || g->is(GroupState::kDead)) return;
  const Member* m = g->get(member_id);
  if (!m || m->has_satisfied_heartbeat()) return;
  remove_member_and_update_group(g, member_id);
}

void GroupCoordinator::Impl::remove_member_and_update_group(const std::shared_ptr<Group>& g,
                                                            const std::string& member_id) {
  Member* m = g->get(member_id);
  if (!m) return;
  // A new member may time out while its join waits: answer it.
  g->invoke_join(*m, join_error(ErrorCode::kUnknownMemberId, member_id));
  g->invoke_sync(*m, SyncGroupResult{ErrorCode::kUnknownMemberId, {}, {}, {}});
  m->is_leaving = true;
  std::shared_ptr<Member> keep = g->remove(member_id);
  heartbeat_purgatory.check_and_complete(member_key(*g, member_id));
  switch (g->state) {
    case GroupState::kStable:
    case GroupState::kCompletingRebalance:
      maybe_prepare_rebalance(g);
      break;
    case GroupState::kPreparingRebalance:
      join_purgatory.check_and_complete(join_key(*g));
      break;
    default:
      break;
  }
}

void GroupCoordinator::Impl::remove_pending_member(const std::shared_ptr<Group>& g, const std::string& member_id) {
  g->pending_members.erase(member_id);
  if (g->is(GroupState::kPreparingRebalance)) join_purgatory.check_and_complete(join_key(*g));
}

void GroupCoordinator::Impl::reset_and_propagate_assignment_error(const std::shared_ptr<Group>& g, ErrorCode error) {
  for (auto& [id, m] : g->members) m->assignment.clear();
  propagate_assignment(g, error);
}

void GroupCoordinator::Impl::propagate_assignment(const std::shared_ptr<Group>& g, ErrorCode error) {
  for (auto& [id, m] : g->members) {
    if (!m->is_awaiting_sync()) continue;
    SyncGroupResult r{error, {}, std::nullopt, std::nullopt};
    if (error == ErrorCode::kNone) r = {error, m->assignment, g->protocol_type, g->protocol_name};
    g->invoke_sync(*m, std::move(r));
    // Expiry was suspended while the member waited; restart it.
    schedule_heartbeat(g, *m, m->session_timeout_ms);
  }
}

void GroupCoordinator::Impl::store_group(const std::shared_ptr<Group>& g,
                                         const std::map<std::string, Bytes>* assignment,
                                         std::function<void(ErrorCode)> done) {
  GroupRecordValue v;
  v.protocol_type = g->protocol_type.value_or("");
  v.generation = g->generation;
  v.protocol = g->protocol_name;
  v.leader = g->leader_id;
  v.current_state_timestamp = g->state_timestamp_ms;
  for (const auto& [id, m] : g->members) {
    MemberRecordValue mv;
    mv.member_id = id;
    mv.group_instance_id = m->group_instance_id;
    mv.client_id = m->client_id;
    mv.client_host = m->client_host;
    mv.rebalance_timeout_ms = m->rebalance_timeout_ms;
    mv.session_timeout_ms = m->session_timeout_ms;
    if (g->protocol_name) {
      if (const Bytes* meta = m->metadata_for(*g->protocol_name)) mv.subscription = *meta;
    }
    if (assignment) {
      auto it = assignment->find(id);
      if (it != assignment->end()) mv.assignment = it->second;
    } else {
      mv.assignment = m->assignment;
    }
    v.members.push_back(std::move(mv));
  }
  std::vector<LogRecord> records;
  records.push_back(LogRecord{encode_key(GroupRecordKey{g->id}), encode_value(v)});
  log.append(g->partition, std::move(records),
             [done = std::move(done)](Status s) { done(group_store_error(s)); });
}

}  // namespace spool::coordinator
