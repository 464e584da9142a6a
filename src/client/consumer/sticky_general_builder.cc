// The sticky algorithm when members subscribe to different topics (Kafka's
// GeneralAssignmentBuilder, without its rack-aware steps):
// 1. keep each member's owned partitions of topics it still subscribes to;
// 2. give each unassigned partition (topics with the fewest potential members
//    first) to the least loaded member subscribed to its topic;
// 3. move partitions from more to less loaded members (back to a previous
//    owner of an older generation when that one is now lighter) until no move
//    helps; undo the moves if the balance score did not improve.
#include <algorithm>
#include <cstdlib>
#include <optional>

#include "client/consumer/partition_movements.h"
#include "client/consumer/sticky_builders.h"

namespace spool::client::sticky {
namespace {

struct PreviousOwner {
  std::string member;
  int32_t generation = kDefaultGeneration;
};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class GeneralBuilder {
 public:
  GeneralBuilder(const PartitionCounts& partitions_per_topic, const MemberSubscriptions& subscriptions,
                 MemberPartitions owned)
      : counts_(partitions_per_topic),
        subscriptions_(subscriptions),
        current_(std::move(owned)),
        by_load_(ByLoad{&current_}) {
    for (const auto& [topic, count] : counts_) {
      topic_members_[topic];
      total_ += count;
    }
    for (const auto& [member, subscription] : subscriptions_) {
      auto& topics = member_topics_[member];
      for (const std::string& topic : subscription.topics) {
        if (!counts_.count(topic) || contains(topics, topic)) continue;
        topics.push_back(topic);
        topic_members_[topic].push_back(member);
      }
      current_[member];
    }
    for (const auto& [member, partitions] : current_) {
      for (const TopicPartition& tp : partitions) owner_[tp] = member;
    }
    std::vector<std::string> topics;
    for (const auto& [topic, members] : topic_members_) topics.push_back(topic);
    std::stable_sort(topics.begin(), topics.end(), [&](const std::string& a, const std::string& b) {
      return topic_members_[a].size() < topic_members_[b].size();
    });
    for (const std::string& topic : topics) {
      for (int32_t p = 0; p < counts_.at(topic); ++p) sorted_partitions_.emplace_back(topic, p);
    }
  }

  GeneralResult build(const std::map<std::string, MemberData>& member_data, int32_t max_generation) {
    std::map<TopicPartition, PreviousOwner> previous;
    for (const auto& [member, data] : member_data) {
      // Owners of an older generation (or of none, once some member has
      // one) are remembered so a partition can go back to them.
      if (data.generation ? *data.generation < max_generation : max_generation > kDefaultGeneration) {
        const int32_t generation = data.generation.value_or(kDefaultGeneration);
        for (const TopicPartition& tp : data.partitions) {
          auto it = previous.find(tp);
          if (it == previous.end() || generation > it->second.generation) previous[tp] = {member, generation};
        }
      }
    }
    const std::set<TopicPartition> kept = keep_owned();
    std::vector<TopicPartition> unassigned;
    for (const TopicPartition& tp : sorted_partitions_) {
      if (!kept.count(tp)) unassigned.push_back(tp);
    }
    for (const auto& [member, partitions] : current_) by_load_.insert(member);
    balance(previous, unassigned);
    return GeneralResult{std::move(current_), movements_.is_sticky()};
  }

 private:
  // Members ordered by how many partitions they hold, then by id. A member's
  // entry is taken out before its count changes and put back after.
  struct ByLoad {
    const MemberPartitions* current;
    bool operator()(const std::string& a, const std::string& b) const {
      const size_t na = current->at(a).size(), nb = current->at(b).size();
      return na != nb ? na < nb : a < b;
    }
  };

  std::set<TopicPartition> keep_owned() {
    std::set<TopicPartition> kept;
    for (auto& [member, partitions] : current_) {
      const auto& topics = subscriptions_.at(member).topics;
      std::erase_if(partitions, [&](const TopicPartition& tp) {
        if (std::find(topics.begin(), topics.end(), tp.topic) == topics.end()) {
          revocation_required_ = true;  // no longer subscribed
          return true;
        }
        kept.insert(tp);
        return false;
      });
    }
    return kept;
  }

  size_t max_assignment_size(const std::string& member) const {
    const auto& topics = member_topics_.at(member);
    if (topics.size() == counts_.size()) return static_cast<size_t>(total_);
    size_t n = 0;
    for (const std::string& topic : topics) n += static_cast<size_t>(counts_.at(topic));
    return n;
  }

  bool is_balanced() const {
    if (by_load_.empty()) return true;
    const size_t lo = current_.at(*by_load_.begin()).size();
    const size_t hi = current_.at(*by_load_.rbegin()).size();
    if (lo + 1 >= hi) return true;
    std::map<TopicPartition, std::string> holder;
    for (const auto& [member, partitions] : current_) {
      for (const TopicPartition& tp : partitions) holder[tp] = member;
    }
    // No member short of what it could hold may take a partition from a
    // member with two or more partitions more.
    for (const std::string& member : by_load_) {
      const size_t mine = current_.at(member).size();
      if (mine == max_assignment_size(member)) continue;
      for (const std::string& topic : member_topics_.at(member)) {
        for (int32_t p = 0; p < counts_.at(topic); ++p) {
          auto it = holder.find(TopicPartition(topic, p));
          if (it == holder.end() || it->second == member) continue;
          auto other = current_.find(it->second);
          if (other != current_.end() && mine + 1 < other->second.size()) return false;
        }
      }
    }
    return true;
  }

  static int64_t balance_score(const MemberPartitions& assignment) {
    int64_t score = 0;
    for (auto a = assignment.begin(); a != assignment.end(); ++a) {
      for (auto b = std::next(a); b != assignment.end(); ++b) {
        score += std::llabs(static_cast<int64_t>(a->second.size()) - static_cast<int64_t>(b->second.size()));
      }
    }
    return score;
  }

  bool topic_can_move(const std::string& topic) const { return topic_members_.at(topic).size() >= 2; }

  bool member_can_move(const std::string& member) const {
    const auto& partitions = current_.at(member);
    if (partitions.size() < max_assignment_size(member)) return true;
    return std::any_of(partitions.begin(), partitions.end(),
                       [&](const TopicPartition& tp) { return topic_can_move(tp.topic); });
  }

  void give(const TopicPartition& tp, std::string member) {
    by_load_.erase(member);
    current_[member].push_back(tp);
    owner_[tp] = member;
    by_load_.insert(member);
  }

  void balance(const std::map<TopicPartition, PreviousOwner>& previous, std::vector<TopicPartition>& unassigned) {
    const bool initializing = current_.at(*by_load_.rbegin()).empty();
    for (const TopicPartition& tp : unassigned) {
      if (topic_members_.at(tp.topic).empty()) continue;
      for (const std::string& member : by_load_) {
        if (contains(member_topics_.at(member), tp.topic)) {
          give(tp, member);
          break;
        }
      }
    }
    // Only partitions with two or more potential members, and members that
    // could change, take part in the moves.
    auto fixed = [&](const TopicPartition& tp) { return !topic_can_move(tp.topic); };
    std::erase_if(sorted_partitions_, fixed);
    std::erase_if(unassigned, fixed);
    MemberPartitions fixed_members;
    for (const auto& [member, topics] : member_topics_) {
      if (!member_can_move(member)) {
        by_load_.erase(member);
        fixed_members[member] = std::move(current_.at(member));
        current_.erase(member);
      }
    }

    const MemberPartitions before = current_;
    const std::map<TopicPartition, std::string> owner_before = owner_;
    // First try moving only the new partitions, unless revocations are
    // needed anyway; Kafka ignores whether this first pass moved anything.
    if (!revocation_required_) reassign(unassigned, previous);
    const bool moved = reassign(sorted_partitions_, previous);
    if (!initializing && moved && balance_score(current_) >= balance_score(before)) {
      current_ = before;
      owner_ = owner_before;
    }
    for (auto& [member, partitions] : fixed_members) current_[member] = std::move(partitions);
  }

  bool reassign(const std::vector<TopicPartition>& partitions, const std::map<TopicPartition, PreviousOwner>& previous) {
    bool moved = false;
    bool modified = true;
    while (modified) {
      modified = false;
      for (const TopicPartition& tp : partitions) {
        if (is_balanced()) break;
        auto holder = owner_.find(tp);
        if (holder == owner_.end() || !current_.count(holder->second)) continue;
        const std::string member = holder->second;
        const size_t load = current_.at(member).size();
        auto prev = previous.find(tp);
        if (prev != previous.end() && current_.count(prev->second.member) &&
            load > current_.at(prev->second.member).size() + 1) {
          move(tp, prev->second.member);
          moved = modified = true;
          continue;
        }
        for (const std::string& other : topic_members_.at(tp.topic)) {
          auto it = current_.find(other);
          if (it != current_.end() && load > it->second.size() + 1) {
            move_to_lightest(tp);
            moved = modified = true;
            break;
          }
        }
      }
    }
    return moved;
  }

  void move_to_lightest(const TopicPartition& tp) {
    for (const std::string& member : by_load_) {
      if (contains(member_topics_.at(member), tp.topic)) {
        move(tp, member);
        return;
      }
    }
  }

  // `to` is a copy: callers pass names held by by_load_, which this erases.
  void move(const TopicPartition& tp, std::string to) {
    const TopicPartition actual = movements_.partition_to_move(tp, owner_.at(tp), to);
    const std::string from = owner_.at(actual);
    by_load_.erase(from);
    by_load_.erase(to);
    movements_.move_partition(actual, from, to);
    std::erase(current_.at(from), actual);
    current_.at(to).push_back(actual);
    owner_[actual] = to;
    by_load_.insert(to);
    by_load_.insert(from);
  }

  const PartitionCounts& counts_;
  const MemberSubscriptions& subscriptions_;
  MemberPartitions current_;
  std::set<std::string, ByLoad> by_load_;
  std::map<std::string, std::vector<std::string>> topic_members_;  // topic -> members that may get it
  std::map<std::string, std::vector<std::string>> member_topics_;  // member -> topics it may get
  std::map<TopicPartition, std::string> owner_;
  std::vector<TopicPartition> sorted_partitions_;
  int64_t total_ = 0;
  bool revocation_required_ = false;
  PartitionMovements movements_;
};

}  // namespace

GeneralResult general_assign(const PartitionCounts& partitions_per_topic, const MemberSubscriptions& subscriptions,
                             MemberPartitions owned, const std::map<std::string, MemberData>& member_data,
                             int32_t max_generation) {
  if (subscriptions.empty()) return GeneralResult{};
  GeneralBuilder builder(partitions_per_topic, subscriptions, std::move(owned));
  return builder.build(member_data, max_generation);
}

}  // namespace spool::client::sticky
