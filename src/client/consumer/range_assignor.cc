#include "client/consumer/range_assignor.h"

#include <algorithm>

namespace spool::client {

Result<MemberPartitions> RangeAssignor::assign_partitions(const PartitionCounts& partitions_per_topic,
                                                          const MemberSubscriptions& subscriptions) {
  MemberPartitions out;
  for (const auto& [member, subscription] : subscriptions) out[member];

  for (const auto& [topic, count] : partitions_per_topic) {
    if (count <= 0) continue;
    std::vector<const MemberSubscriptions::value_type*> members;
    for (const auto& entry : subscriptions) {
      const auto& topics = entry.second.topics;
      if (std::find(topics.begin(), topics.end(), topic) != topics.end()) members.push_back(&entry);
    }
    if (members.empty()) continue;
    std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
      return member_order_less(a->first, a->second, b->first, b->second);
    });
    const int32_t n = static_cast<int32_t>(members.size());
    const int32_t per_member = count / n;
    const int32_t with_extra = count % n;
    int32_t next = 0;
    for (int32_t i = 0; i < n && next < count; ++i) {
      const int32_t take = per_member + (i < with_extra ? 1 : 0);
      auto& list = out[members[static_cast<size_t>(i)]->first];
      for (int32_t p = next; p < next + take; ++p) list.emplace_back(topic, p);
      next += take;
    }
  }
  return out;
}

}  // namespace spool::client
