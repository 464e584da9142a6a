#include "coordinator/group/group.h"

#include <algorithm>

#include "coordinator/group/consumer_protocol.h"

namespace spool::coordinator {

const char* state_name(GroupState s) {
  switch (s) {
    case GroupState::kEmpty: return "Empty";
    case GroupState::kPreparingRebalance: return "PreparingRebalance";
    case GroupState::kCompletingRebalance: return "CompletingRebalance";
    case GroupState::kStable: return "Stable";
    case GroupState::kDead: return "Dead";
  }
  return "Dead";
}

Group::Group(std::string gid, int32_t part, int64_t now_wall_ms)
    : id(std::move(gid)), partition(part), state_timestamp_ms(now_wall_ms) {}

GroupLock::~GroupLock() {
  std::vector<std::function<void()>> ready;
  if (--g_.lock_depth == 0) ready.swap(g_.outbox);
  g_.lock->unlock();
  for (auto& f : ready) f();
}

void Group::transition_to(GroupState s, int64_t now_wall_ms) {
  state = s;
  state_timestamp_ms = now_wall_ms;
}

Member* Group::get(const std::string& member_id) const {
  auto it = members.find(member_id);
  return it == members.end() ? nullptr : it->second.get();
}

bool Group::can_rebalance() const {
  return state == GroupState::kStable || state == GroupState::kCompletingRebalance || state == GroupState::kEmpty;
}

bool Group::supports_protocols(const std::string& type, const ProtocolList& protocols) const {
  if (state == GroupState::kEmpty) return !type.empty() && !protocols.empty();
  if (!protocol_type || *protocol_type != type) return false;
  for (const auto& [name, meta] : protocols) {
    bool everyone = true;
    for (const auto& [id, m] : members) {
      if (!m->metadata_for(name)) {
        everyone = false;
        break;
      }
    }
    if (everyone) return true;
  }
  return false;
}

void Group::add(std::shared_ptr<Member> m, std::function<void(JoinGroupResult)> callback) {
  if (members.empty()) protocol_type = m->protocol_type;
  if (!leader_id) leader_id = m->member_id;
  m->awaiting_join = std::move(callback);
  if (m->is_awaiting_join()) ++num_awaiting_join;
  pending_members.erase(m->member_id);
  if (m->group_instance_id) static_members[*m->group_instance_id] = m->member_id;
  members[m->member_id] = std::move(m);
}

std::shared_ptr<Member> Group::remove(const std::string& member_id) {
  pending_members.erase(member_id);
  pending_sync_members.erase(member_id);
  auto it = members.find(member_id);
  if (it == members.end()) return nullptr;
  std::shared_ptr<Member> m = std::move(it->second);
  members.erase(it);
  if (m->is_awaiting_join()) --num_awaiting_join;
  if (m->group_instance_id) {
    auto s = static_members.find(*m->group_instance_id);
    if (s != static_members.end() && s->second == member_id) static_members.erase(s);
  }
  if (is_leader(member_id)) {
    leader_id.reset();
    if (!members.empty()) leader_id = members.begin()->first;
  }
  return m;
}

void Group::update_member(Member& m, ProtocolList protocols, std::function<void(JoinGroupResult)> callback) {
  m.protocols = std::move(protocols);
  if (callback && !m.is_awaiting_join()) ++num_awaiting_join;
  if (!callback && m.is_awaiting_join()) --num_awaiting_join;
  m.awaiting_join = std::move(callback);
}

Member* Group::replace_static_member(const std::string& instance_id, const std::string& old_id,
                                     const std::string& new_id) {
  auto it = members.find(old_id);
  if (it == members.end()) return nullptr;
  std::shared_ptr<Member> m = std::move(it->second);
  members.erase(it);
  // The old incarnation may still wait for an answer: fence it.
  if (m->is_awaiting_join()) {
    JoinGroupResult r;
    r.error = ErrorCode::kFencedInstanceId;
    r.member_id = old_id;
    invoke_join(*m, std::move(r));
  }
  if (m->is_awaiting_sync()) invoke_sync(*m, SyncGroupResult{ErrorCode::kFencedInstanceId, {}, {}, {}});
  m->member_id = new_id;
  if (pending_sync_members.erase(old_id)) pending_sync_members.insert(new_id);
  if (is_leader(old_id)) leader_id = new_id;
  static_members[instance_id] = new_id;
  Member* raw = m.get();
  members[new_id] = std::move(m);
  return raw;
}

std::optional<std::string> Group::static_member_id(const std::string& instance_id) const {
  auto it = static_members.find(instance_id);
  if (it == static_members.end()) return std::nullopt;
  return it->second;
}

bool Group::is_static_member_fenced(const std::string& member_id,
                                    const std::optional<std::string>& instance_id) const {
  if (!instance_id) return false;
  auto it = static_members.find(*instance_id);
  return it != static_members.end() && it->second != member_id;
}

int32_t Group::rebalance_timeout_ms() const {
  int32_t t = 0;
  for (const auto& [id, m] : members) t = std::max(t, m->rebalance_timeout_ms);
  return t;
}

std::string Group::select_protocol() const {
  if (members.empty()) return {};
  std::set<std::string> candidates;
  const Member* first = members.begin()->second.get();
  if (leader_id) {
    if (const Member* l = get(*leader_id)) first = l;
  }
  for (const auto& [name, meta] : first->protocols) {
    bool everyone = true;
    for (const auto& [id, m] : members) everyone = everyone && m->metadata_for(name) != nullptr;
    if (everyone) candidates.insert(name);
  }
  std::map<std::string, int> votes;
  for (const auto& [id, m] : members) {
    std::string v = m->vote(candidates);
    if (!v.empty()) ++votes[v];
  }
  std::string best;
  int best_votes = 0;
  for (const auto& [name, meta] : first->protocols) {  // ties: preference order
    auto it = votes.find(name);
    if (it != votes.end() && it->second > best_votes) {
      best = name;
      best_votes = it->second;
    }
  }
  return best;
}

bool Group::maybe_elect_new_joined_leader() {
  if (!leader_id) return false;
  Member* leader = get(*leader_id);
  if (leader && leader->is_awaiting_join()) return true;
  for (const auto& [id, m] : members) {
    if (m->is_awaiting_join()) {
      leader_id = id;
      return true;
    }
  }
  return false;
}

void Group::init_next_generation(int64_t now_wall_ms) {
  ++generation;
  if (!members.empty()) {
    protocol_name = select_protocol();
    transition_to(GroupState::kCompletingRebalance, now_wall_ms);
  } else {
    protocol_name.reset();
    transition_to(GroupState::kEmpty, now_wall_ms);
  }
  recompute_subscribed_topics();
}

void Group::recompute_subscribed_topics() {
  subscribed_topics.reset();
  if (!protocol_type || *protocol_type != kConsumerProtocolType || !protocol_name) return;
  std::set<std::string> all;
  for (const auto& [id, m] : members) {
    const Bytes* meta = m->metadata_for(*protocol_name);
    if (!meta) return;
    auto topics = decode_subscription_topics(ByteSpan(*meta));
    if (!topics) return;  // undecodable: unknown, as Kafka
    all.insert(topics->begin(), topics->end());
  }
  subscribed_topics = std::move(all);
}

std::vector<JoinGroupResult::Member> Group::current_member_metadata() const {
  std::vector<JoinGroupResult::Member> out;
  if (!protocol_name) return out;
  for (const auto& [id, m] : members) {
    const Bytes* meta = m->metadata_for(*protocol_name);
    out.push_back({id, m->group_instance_id, meta ? *meta : Bytes{}});
  }
  return out;
}

void Group::invoke_join(Member& m, JoinGroupResult r) {
  if (!m.awaiting_join) return;
  auto cb = std::move(m.awaiting_join);
  m.awaiting_join = nullptr;
  --num_awaiting_join;
  defer([cb = std::move(cb), r = std::move(r)]() mutable { cb(std::move(r)); });
}

void Group::invoke_sync(Member& m, SyncGroupResult r) {
  if (!m.awaiting_sync) return;
  auto cb = std::move(m.awaiting_sync);
  m.awaiting_sync = nullptr;
  defer([cb = std::move(cb), r = std::move(r)]() mutable { cb(std::move(r)); });
}

}  // namespace spool::coordinator
