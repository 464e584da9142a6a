#include "client/consumer/cooperative_sticky_assignor.h"

#include <algorithm>
#include <set>

namespace spool::client {

std::optional<Bytes> CooperativeStickyAssignor::subscription_user_data(const std::set<std::string>& topics) const {
  (void)topics;
  return encode_cooperative_user_data(generation_);
}

void CooperativeStickyAssignor::on_assignment(const Assignment& assignment, int32_t generation) {
  (void)assignment;
  generation_ = generation;
}

MemberData CooperativeStickyAssignor::member_data(const Subscription& subscription) const {
  if (subscription.generation_id >= 0) return MemberData{subscription.owned_partitions, subscription.generation_id};
  return MemberData{subscription.owned_partitions, decode_cooperative_user_data(subscription.user_data)};
}

Result<MemberPartitions> CooperativeStickyAssignor::assign_partitions(const PartitionCounts& partitions_per_topic,
                                                                      const MemberSubscriptions& subscriptions) {
  Result<MemberPartitions> result = AbstractStickyAssignor::assign_partitions(partitions_per_topic, subscriptions);
  if (!result) return result;
  MemberPartitions& assignment = *result;

  std::map<TopicPartition, std::string> moving;
  if (partitions_transferring_ownership()) {
    moving = *partitions_transferring_ownership();
  } else {
    // The general algorithm does not track moves: a partition moves if some
    // member gains it while a member that owned it loses it.
    std::set<TopicPartition> revoked;
    for (const auto& [member, partitions] : assignment) {
      const auto& owned = subscriptions.at(member).owned_partitions;
      const std::set<TopicPartition> owned_set(owned.begin(), owned.end());
      const std::set<TopicPartition> assigned_set(partitions.begin(), partitions.end());
      for (const TopicPartition& tp : partitions) {
        if (!owned_set.count(tp)) moving[tp] = member;
      }
      for (const TopicPartition& tp : owned) {
        if (!assigned_set.count(tp)) revoked.insert(tp);
      }
    }
    std::erase_if(moving, [&](const auto& entry) { return !revoked.count(entry.first); });
  }
  for (const auto& [tp, member] : moving) std::erase(assignment[member], tp);
  return result;
}

}  // namespace spool::client
