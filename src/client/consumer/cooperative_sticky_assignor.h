// CooperativeStickyAssignor ("cooperative-sticky"): the sticky assignment
// (abstract_sticky_assignor.h) under the cooperative rebalance protocol.
// Members keep their partitions while rejoining and report them as the
// subscription's owned partitions (with the generation from version 2, or
// else in the user data: the int32 generation, sticky_user_data.h).
//
// Two phases: a partition that changes owner is left out of this round's
// assignment altogether, so its old owner revokes it first; the revocation
// triggers another rebalance, in which the partition is unowned and goes to
// its new member. Supports COOPERATIVE (preferred) and EAGER. Not thread-safe.
#pragma once

#include "client/consumer/abstract_sticky_assignor.h"

namespace spool::client {

class CooperativeStickyAssignor : public AbstractStickyAssignor {
 public:
  static constexpr std::string_view kName = "cooperative-sticky";

  std::string_view name() const override { return kName; }
  std::vector<RebalanceProtocol> supported_protocols() const override {
    return {RebalanceProtocol::kCooperative, RebalanceProtocol::kEager};
  }
  // Always the generation of the last on_assignment() (-1 before any).
  std::optional<Bytes> subscription_user_data(const std::set<std::string>& topics) const override;
  void on_assignment(const Assignment& assignment, int32_t generation) override;
  // The subscription's owned partitions; its generation when set (v2+), else
  // the one in the user data (none if the user data is null).
  MemberData member_data(const Subscription& subscription) const override;

  // The sticky assignment minus the partitions changing owner.
  Result<MemberPartitions> assign_partitions(const PartitionCounts& partitions_per_topic,
                                             const MemberSubscriptions& subscriptions) override;

 private:
  int32_t generation_ = kDefaultGeneration;
};

}  // namespace spool::client
