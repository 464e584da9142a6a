// The fixture the sticky and cooperative-sticky tests share (Kafka's
// AbstractStickyAssignorTest): one test body runs against both assignors.
// verify() is Kafka's verifyValidityAndBalance; for the cooperative assignor
// it first runs the follow-up rebalances (as CooperativeStickyAssignorTest
// overrides it), checking that no partition is revoked from one member and
// given to another in the same round, then checks the final assignment.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "assignor_test_support.h"
#include "client/consumer/cooperative_sticky_assignor.h"
#include "client/consumer/sticky_assignor.h"

namespace spool::client::testing {

using TPs = std::vector<TopicPartition>;

inline std::string canonical(const std::string& prefix, int i, int max) {
  std::string n = std::to_string(i);
  const size_t width = std::to_string(max).size();
  return prefix + std::string(width > n.size() ? width - n.size() : 0, '0') + n;
}
inline std::string topic_name(int i, int max) { return canonical("t", i, max); }
inline std::string consumer_name(int i, int max) { return canonical("c", i, max); }

class StickyFixture : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { assignor_ = make(); }

  std::unique_ptr<AbstractStickyAssignor> make() const {
    if (cooperative()) return std::make_unique<CooperativeStickyAssignor>();
    return std::make_unique<StickyAssignor>();
  }
  bool cooperative() const { return GetParam() == "cooperative-sticky"; }

  // Kafka's buildSubscriptionV2Above: owned partitions and generation both in
  // the subscription; the sticky assignor's user data carries them too.
  Subscription v2(std::vector<std::string> topics, TPs partitions, int32_t generation) const {
    Subscription s = sub(std::move(topics));
    s.owned_partitions = partitions;
    s.generation_id = generation;
    s.user_data = cooperative() ? assignor_->subscription_user_data({})
                                : std::optional<Bytes>(encode_sticky_user_data(MemberData{partitions, generation}));
    return s;
  }

  MemberPartitions assign(const PartitionCounts& counts, const MemberSubscriptions& subs) {
    Result<MemberPartitions> r = assignor_->assign_partitions(counts, subs);
    EXPECT_TRUE(r.is_ok()) << r.status().message();
    return r.is_ok() ? *r : MemberPartitions{};
  }

  bool transferring_empty() const {
    return assignor_->partitions_transferring_ownership() && assignor_->partitions_transferring_ownership()->empty();
  }

  void verify(MemberSubscriptions& subs, MemberPartitions& assignment, const PartitionCounts& counts) {
    for (int rebalances = 0; cooperative(); ++rebalances) {
      std::set<TopicPartition> added, revoked;
      for (const auto& [member, tps] : assignment) {
        const auto owned = as_set(subs.at(member).owned_partitions);
        const auto now = as_set(tps);
        for (const auto& tp : now) {
          if (!owned.count(tp)) added.insert(tp);
        }
        for (const auto& tp : owned) {
          if (!now.count(tp)) revoked.insert(tp);
        }
      }
      for (const auto& tp : added) EXPECT_FALSE(revoked.count(tp)) << tp.to_string() << " revoked and given at once";
      if (revoked.empty()) break;
      ASSERT_LE(rebalances, 4) << "no stable assignment after 4 follow-up rebalances";
      for (const auto& [member, tps] : assignment) subs[member] = v2(subs[member].topics, tps, 1);
      assignment = assign(counts, subs);
    }
    verify_validity_and_balance(subs, assignment, counts);
  }

  std::unique_ptr<AbstractStickyAssignor> assignor_;
};

}  // namespace spool::client::testing
