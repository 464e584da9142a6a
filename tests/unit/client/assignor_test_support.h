// Helpers for the assignor tests: building subscriptions and partition
// lists, and the validity checks Kafka's AbstractStickyAssignorTest applies
// (verifyValidityAndBalance, isFullyBalanced), rewritten for Spool's types.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "client/consumer/partition_assignor.h"

namespace spool::client::testing {

inline TopicPartition tp(const std::string& topic, int32_t partition) { return TopicPartition(topic, partition); }

inline Subscription sub(std::vector<std::string> topics) {
  Subscription s;
  s.topics = std::move(topics);
  return s;
}

inline Subscription static_sub(std::vector<std::string> topics, std::string instance_id) {
  Subscription s = sub(std::move(topics));
  s.group_instance_id = std::move(instance_id);
  return s;
}

inline std::set<TopicPartition> as_set(const std::vector<TopicPartition>& v) { return {v.begin(), v.end()}; }

inline bool subscribes(const Subscription& s, const std::string& topic) {
  return std::find(s.topics.begin(), s.topics.end(), topic) != s.topics.end();
}

inline bool is_fully_balanced(const MemberPartitions& assignment) {
  size_t lo = SIZE_MAX, hi = 0;
  for (const auto& [member, tps] : assignment) {
    lo = std::min(lo, tps.size());
    hi = std::max(hi, tps.size());
  }
  return assignment.empty() || hi - lo <= 1;
}

// Kafka's verifyValidityAndBalance: every member has an entry; members get
// only partitions of their topics, each at most once overall, and every
// partition of a subscribed topic is assigned; balance as below.
inline void verify_validity_and_balance(const MemberSubscriptions& subscriptions, const MemberPartitions& assignment,
                                        const PartitionCounts& partitions_per_topic) {
  ASSERT_EQ(assignment.size(), subscriptions.size());
  std::map<TopicPartition, std::string> owner;
  for (const auto& [member, tps] : assignment) {
    ASSERT_TRUE(subscriptions.count(member)) << member;
    const Subscription& s = subscriptions.at(member);
    for (const TopicPartition& p : tps) {
      EXPECT_TRUE(subscribes(s, p.topic)) << member << " got " << p.to_string() << " of a topic it does not subscribe";
      auto count = partitions_per_topic.find(p.topic);
      EXPECT_TRUE(count != partitions_per_topic.end() && p.partition < count->second) << p.to_string();
      auto [it, fresh] = owner.emplace(p, member);
      EXPECT_TRUE(fresh) << p.to_string() << " given to " << it->second << " and " << member;
    }
  }
  // Every partition some member subscribes to is assigned.
  for (const auto& entry : partitions_per_topic) {
    const std::string& topic = entry.first;  // lambdas cannot capture a structured binding (clang < 16)
    const int32_t count = entry.second;
    bool wanted = std::any_of(subscriptions.begin(), subscriptions.end(),
                              [&](const auto& e) { return subscribes(e.second, topic); });
    for (int32_t p = 0; wanted && p < count; ++p) EXPECT_TRUE(owner.count(tp(topic, p))) << topic << "-" << p;
  }
  // Kafka's balance rule: two members more than one partition apart share
  // no topic among their assigned partitions.
  for (const auto& [a, tps_a] : assignment) {
    for (const auto& [b, tps_b] : assignment) {
      if (tps_a.size() <= tps_b.size() + 1) continue;
      for (const TopicPartition& p : tps_a) {
        EXPECT_FALSE(std::any_of(tps_b.begin(), tps_b.end(), [&](const TopicPartition& q) { return q.topic == p.topic; }))
            << a << " has " << tps_a.size() << " partitions and " << b << " has " << tps_b.size()
            << "; both hold partitions of " << p.topic;
      }
    }
  }
}

}  // namespace spool::client::testing
