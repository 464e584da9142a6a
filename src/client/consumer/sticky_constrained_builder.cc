// The sticky algorithm when all members subscribe to the same topics
// (Kafka's ConstrainedAssignmentBuilder, without its rack-aware step):
// 1. each member keeps its owned partitions, sorted by partition then topic,
//    up to minQuota, or maxQuota while fewer than (total % members) members
//    have been allowed maxQuota; the rest may be revoked;
// 2. the remaining partitions, in topic then partition order, go round-robin
//    to members under minQuota (sorted by id), then one each to members at
//    exactly minQuota until enough members reach maxQuota.
#include <algorithm>
#include <list>
#include <numeric>

#include "client/consumer/sticky_builders.h"

namespace spool::client::sticky {

Result<MemberPartitions> constrained_assign(const PartitionCounts& partitions_per_topic, const MemberPartitions& owned,
                                            const std::set<TopicPartition>& multiple_owners,
                                            std::map<TopicPartition, std::string>& transferring) {
  MemberPartitions assignment;
  if (owned.empty()) return assignment;
  int64_t total = 0;
  for (const auto& [topic, count] : partitions_per_topic) total += count;
  const int64_t members = static_cast<int64_t>(owned.size());
  const size_t min_quota = static_cast<size_t>(total / members);
  const size_t max_quota = static_cast<size_t>((total + members - 1) / members);
  const int64_t expected_over_min = total % members;
  int64_t current_over_min = 0;

  std::set<TopicPartition> assigned;
  std::map<TopicPartition, std::string> maybe_revoked;
  std::list<std::string> under_min;    // may still get partitions, below minQuota
  std::list<std::string> exactly_min;  // at minQuota, may still reach maxQuota

  for (const auto& [member, owned_partitions] : owned) {
    std::vector<TopicPartition> keep = owned_partitions;
    std::sort(keep.begin(), keep.end(), [](const TopicPartition& a, const TopicPartition& b) {
      return a.partition != b.partition ? a.partition < b.partition : a.topic < b.topic;
    });
    std::erase_if(keep, [&](const TopicPartition& tp) { return multiple_owners.count(tp) > 0; });
    auto& mine = assignment[member];
    size_t quota = keep.size();
    if (keep.size() < min_quota) {
      under_min.push_back(member);
    } else if (keep.size() >= max_quota && current_over_min < expected_over_min) {
      quota = max_quota;
      if (++current_over_min == expected_over_min) exactly_min.clear();
    } else {
      quota = min_quota;
      if (current_over_min < expected_over_min) exactly_min.push_back(member);
    }
    for (size_t i = 0; i < keep.size(); ++i) {
      if (i < quota) {
        mine.push_back(keep[i]);
        assigned.insert(keep[i]);
      } else {
        maybe_revoked[keep[i]] = member;
      }
    }
  }

  std::vector<TopicPartition> unassigned;
  for (const auto& [topic, count] : partitions_per_topic) {
    for (int32_t p = 0; p < count; ++p) {
      TopicPartition tp(topic, p);
      if (!assigned.count(tp)) unassigned.push_back(std::move(tp));
    }
  }
  under_min.sort();
  exactly_min.sort();

  auto assign_new = [&](const TopicPartition& tp, const std::string& member) {
    auto& mine = assignment[member];
    mine.push_back(tp);
    auto revoked = maybe_revoked.find(tp);
    if ((revoked != maybe_revoked.end() && revoked->second != member) || multiple_owners.count(tp)) {
      transferring[tp] = member;
    }
    return mine.size();
  };

  // Kafka walks the under-minQuota list with one iterator, restarting it when
  // it runs out, and removes members from it as they reach minQuota.
  auto next = under_min.begin();
  for (const TopicPartition& tp : unassigned) {
    std::string member;
    auto taken = under_min.end();
    if (next != under_min.end()) {
      taken = next++;
      member = *taken;
    } else if (under_min.empty() && exactly_min.empty()) {
      return Status::error("sticky assignor: no more unfilled members for " + tp.to_string());
    } else if (under_min.empty()) {
      member = exactly_min.front();
      exactly_min.pop_front();
    } else {
      next = under_min.begin();
      taken = next++;
      member = *taken;
    }
    const size_t count = assign_new(tp, member);
    if (count == min_quota && taken != under_min.end()) {
      under_min.erase(taken);
      exactly_min.push_back(member);
    } else if (count == max_quota) {
      ++current_over_min;
    }
  }

  // Members still under minQuota are only fine if the expected number of
  // members reached maxQuota and they hold exactly minQuota.
  if (!under_min.empty()) {
    if (current_over_min != expected_over_min) {
      return Status::error("sticky assignor: fewer members than expected reached maxQuota");
    }
    for (const std::string& member : under_min) {
      if (assignment[member].size() != min_quota) {
        return Status::error("sticky assignor: member " + member + " did not reach minQuota");
      }
    }
  }
  return assignment;
}

}  // namespace spool::client::sticky
