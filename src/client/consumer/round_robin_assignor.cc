#include "client/consumer/round_robin_assignor.h"

#include <algorithm>
#include <set>

namespace spool::client {

Result<MemberPartitions> RoundRobinAssignor::assign_partitions(const PartitionCounts& partitions_per_topic,
                                                               const MemberSubscriptions& subscriptions) {
  MemberPartitions out;
  std::vector<const MemberSubscriptions::value_type*> members;
  std::set<std::string> topics;  // sorted: partitions go out by topic, then partition
  for (const auto& entry : subscriptions) {
    out[entry.first];
    members.push_back(&entry);
    topics.insert(entry.second.topics.begin(), entry.second.topics.end());
  }
  if (members.empty()) return out;
  std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
    return member_order_less(a->first, a->second, b->first, b->second);
  });

  auto subscribes = [](const MemberSubscriptions::value_type* m, const std::string& topic) {
    const auto& t = m->second.topics;
    return std::find(t.begin(), t.end(), topic) != t.end();
  };
  size_t next = 0;  // the circular iterator's position
  for (const std::string& topic : topics) {
    auto it = partitions_per_topic.find(topic);
    if (it == partitions_per_topic.end()) continue;
    for (int32_t p = 0; p < it->second; ++p) {
      // Some member subscribes to every topic in `topics`, so this ends.
      while (!subscribes(members[next], topic)) next = (next + 1) % members.size();
      out[members[next]->first].emplace_back(topic, p);
      next = (next + 1) % members.size();
    }
  }
  return out;
}

}  // namespace spool::client
