#include "client/consumer/partition_movements.h"

#include <algorithm>

namespace spool::client::sticky {

PartitionMovements::Pair PartitionMovements::remove_record(const TopicPartition& partition) {
  auto it = movements_.find(partition);
  const Pair pair = it->second;
  movements_.erase(it);
  auto topic = by_topic_.find(partition.topic);
  auto moved = topic->second.find(pair);
  moved->second.erase(partition);
  if (moved->second.empty()) topic->second.erase(moved);
  if (topic->second.empty()) by_topic_.erase(topic);
  return pair;
}

void PartitionMovements::add_record(const TopicPartition& partition, const Pair& pair) {
  movements_[partition] = pair;
  by_topic_[partition.topic][pair].insert(partition);
}

void PartitionMovements::move_partition(const TopicPartition& partition, const std::string& from,
                                        const std::string& to) {
  if (movements_.count(partition)) {
    // Moved before: fold the two moves into one, or drop it if it goes home.
    const Pair earlier = remove_record(partition);
    if (earlier.first != to) add_record(partition, Pair{earlier.first, to});
  } else {
    add_record(partition, Pair{from, to});
  }
}

TopicPartition PartitionMovements::partition_to_move(const TopicPartition& partition, std::string from,
                                                     const std::string& to) const {
  auto topic = by_topic_.find(partition.topic);
  if (topic == by_topic_.end()) return partition;
  if (auto earlier = movements_.find(partition); earlier != movements_.end()) from = earlier->second.first;
  auto reverse = topic->second.find(Pair{to, from});
  if (reverse == topic->second.end()) return partition;
  return *reverse->second.begin();
}

// Kafka's isLinked: follows the first pair leaving `src` (greedily, as Kafka
// does) looking for a path to `dst`, appending the members it visits.
bool PartitionMovements::is_linked(const std::string& src, const std::string& dst, std::set<Pair> pairs,
                                   std::vector<std::string>& path) {
  if (src == dst || pairs.empty()) return false;
  if (pairs.count(Pair{src, dst})) {
    path.push_back(src);
    path.push_back(dst);
    return true;
  }
  for (const Pair& pair : pairs) {
    if (pair.first == src) {
      const Pair taken = pair;
      pairs.erase(taken);
      path.push_back(taken.first);
      return is_linked(taken.second, dst, std::move(pairs), path);
    }
  }
  return false;
}

bool PartitionMovements::has_cycles(const std::set<Pair>& pairs) {
  std::vector<std::vector<std::string>> cycles;
  auto known = [&](const std::vector<std::string>& cycle) {
    // A rotation of a known cycle is the same cycle.
    std::vector<std::string> doubled(cycle.begin(), cycle.end() - 1);
    doubled.insert(doubled.end(), cycle.begin(), cycle.end());
    return std::any_of(cycles.begin(), cycles.end(), [&](const auto& found) {
      return found.size() == cycle.size() &&
             std::search(doubled.begin(), doubled.end(), found.begin(), found.end()) != doubled.end();
    });
  };
  for (const Pair& pair : pairs) {
    std::set<Pair> reduced = pairs;
    reduced.erase(pair);
    std::vector<std::string> path{pair.first};
    if (is_linked(pair.second, pair.first, std::move(reduced), path) && !known(path)) cycles.push_back(path);
  }
  // Only cycles of length 2 (A->B->A) count, as in Kafka: longer ones are
  // rare and not worth the complexity.
  return std::any_of(cycles.begin(), cycles.end(), [](const auto& c) { return c.size() == 3; });
}

bool PartitionMovements::is_sticky() const {
  for (const auto& [topic, moves] : by_topic_) {
    std::set<Pair> pairs;
    for (const auto& [pair, partitions] : moves) pairs.insert(pair);
    if (has_cycles(pairs)) return false;
  }
  return true;
}

}  // namespace spool::client::sticky
