#include "client/consumer/partition_assignor.h"

namespace spool::client {

Result<MemberAssignments> PartitionAssignor::assign(const PartitionCounts& cluster,
                                                    const MemberSubscriptions& subscriptions) {
  PartitionCounts subscribed;
  for (const auto& [member, subscription] : subscriptions) {
    for (const std::string& topic : subscription.topics) {
      auto it = cluster.find(topic);
      if (it != cluster.end() && it->second > 0) subscribed.emplace(topic, it->second);
    }
  }
  Result<MemberPartitions> partitions = assign_partitions(subscribed, subscriptions);
  if (!partitions) return partitions.status();
  MemberAssignments out;
  for (const auto& [member, subscription] : subscriptions) out[member];
  for (auto& [member, tps] : *partitions) out[member].partitions = std::move(tps);
  return out;
}

bool member_order_less(const std::string& member_a, const Subscription& a, const std::string& member_b,
                       const Subscription& b) {
  if (a.group_instance_id && b.group_instance_id) {
    if (*a.group_instance_id != *b.group_instance_id) return *a.group_instance_id < *b.group_instance_id;
    return member_a < member_b;
  }
  if (a.group_instance_id) return true;
  if (b.group_instance_id) return false;
  return member_a < member_b;
}

}  // namespace spool::client
