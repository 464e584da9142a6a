#include "client/consumer/abstract_sticky_assignor.h"

#include <algorithm>
#include <set>

#include "client/consumer/sticky_builders.h"

namespace spool::client {

Result<MemberPartitions> AbstractStickyAssignor::assign_partitions(const PartitionCounts& cluster,
                                                                   const MemberSubscriptions& subscriptions) {
  // Topics nobody subscribes to are not assigned, even when the caller
  // passes them (assign() filters them already; Kafka relies on that).
  PartitionCounts partitions_per_topic;
  for (const auto& [member, subscription] : subscriptions) {
    for (const std::string& topic : subscription.topics) {
      auto it = cluster.find(topic);
      if (it != cluster.end() && it->second > 0) partitions_per_topic.emplace(topic, it->second);
    }
  }
  transferring_.reset();
  sticky_ = true;
  if (subscriptions.empty()) {
    transferring_.emplace();
    return MemberPartitions{};
  }

  // Kafka's allSubscriptionsEqual, which also settles ownership claims.
  bool all_equal = true;
  std::optional<std::set<std::string>> first_topics;
  std::map<std::string, MemberData> reports;  // member_data() of each member
  int32_t max_generation = kDefaultGeneration;
  MemberPartitions owned;
  std::set<TopicPartition> multiple_owners;  // claimed twice in one generation
  std::map<TopicPartition, std::string> claimed_by;
  for (const auto& [member, subscription] : subscriptions) {
    const std::set<std::string> topics(subscription.topics.begin(), subscription.topics.end());
    if (!first_topics) {
      first_topics = topics;
    } else if (topics != *first_topics) {
      all_equal = false;
    }
    const MemberData& data = reports[member] = member_data(subscription);
    const int32_t generation = data.generation.value_or(kDefaultGeneration);
    max_generation = std::max(max_generation, generation);
    auto& mine = owned[member];
    for (const TopicPartition& tp : data.partitions) {
      auto count = partitions_per_topic.find(tp.topic);
      if (count == partitions_per_topic.end() || tp.partition < 0 || tp.partition >= count->second) continue;
      auto claim = claimed_by.find(tp);
      if (claim == claimed_by.end()) {
        mine.push_back(tp);
        claimed_by[tp] = member;
        continue;
      }
      const std::string other = claim->second;
      const int32_t other_generation = reports[other].generation.value_or(kDefaultGeneration);
      if (generation == other_generation) {
        multiple_owners.insert(tp);
        std::erase(owned[other], tp);
        claim->second = member;
      } else if (generation > other_generation) {
        mine.push_back(tp);
        std::erase(owned[other], tp);
        claim->second = member;
      }  // else the other claimant, of a newer generation, keeps it
    }
  }

  if (all_equal) {
    std::map<TopicPartition, std::string> transferring;
    Result<MemberPartitions> out =
        sticky::constrained_assign(partitions_per_topic, owned, multiple_owners, transferring);
    if (out) transferring_ = std::move(transferring);
    return out;
  }
  sticky::GeneralResult general =
      sticky::general_assign(partitions_per_topic, subscriptions, std::move(owned), reports, max_generation);
  sticky_ = general.sticky;
  return std::move(general.assignment);
}

}  // namespace spool::client
