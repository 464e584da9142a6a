// ConsumerCoordinator, part 3: the leader's side of a rebalance (see
// consumer_coordinator.h): the assignment from every member's subscription,
// and the partition counts it was made from, whose change asks for the next
// rebalance.
#include <spdlog/spdlog.h>

#include "client/consumer/consumer_coordinator.h"
#include "client/consumer/consumer_protocol.h"

namespace spool::client {

bool ConsumerCoordinator::leader_assign(const protocol::JoinGroupResponse& resp) {
  MemberSubscriptions subs;
  std::set<std::string> topics;
  for (const auto& member : resp.members) {
    auto s = decode_subscription(member.metadata);
    if (!s) {
      fail(Status::error("member " + member.member_id + " sent a bad subscription: " + s.status().message()));
      leader_pending_.reset();
      state_ = MemberState::kUnjoined;
      return true;
    }
    s->group_instance_id = member.group_instance_id;
    topics.insert(s->topics.begin(), s->topics.end());
    subs[member.member_id] = std::move(*s);
  }
  auto snap = ctx_.metadata.snapshot();
  bool missing = false;
  for (const std::string& t : topics) {
    ctx_.metadata.add_topic(t);
    if (snap->topic(t) == nullptr) missing = true;
  }
  if (missing && ctx_.now() < leader_wait_until_ms_) {
    ctx_.metadata.request_update();
    return false;  // poll() tries again once the metadata has them
  }
  PartitionCounts counts;
  leader_counts_.clear();
  for (const std::string& t : topics) {
    const TopicMetadata* tm = snap->topic(t);
    if (tm != nullptr && !tm->partitions.empty()) counts[t] = static_cast<int32_t>(tm->partitions.size());
    leader_counts_[t] = counts.count(t) ? counts[t] : 0;
  }
  auto assignments = assignor(protocol_name_)->assign(counts, subs);
  leader_pending_.reset();
  if (!assignments) {
    fail(assignments.status());
    state_ = MemberState::kUnjoined;
    return true;
  }
  std::map<std::string, Bytes> out;
  for (const auto& [member, a] : *assignments) out[member] = encode_assignment(a);
  send_sync(std::move(out));
  return true;
}

bool ConsumerCoordinator::leader_metadata_changed() const {
  if (leader_counts_.empty()) return false;
  auto snap = ctx_.metadata.snapshot();
  for (const auto& [topic, count] : leader_counts_) {
    const TopicMetadata* tm = snap->topic(topic);
    const auto now = tm != nullptr ? static_cast<int32_t>(tm->partitions.size()) : 0;
    // A topic the metadata no longer names is not a reason to rebalance at
    // once (a refresh may miss it); a count that moved, or a topic that
    // appeared, is.
    if (tm != nullptr && now != count) return true;
  }
  return false;
}

}  // namespace spool::client
