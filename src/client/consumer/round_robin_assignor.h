// RoundRobinAssignor ("roundrobin"): every subscribed partition, sorted by
// topic then partition, is dealt in turn to the members in member order
// (static members by group.instance.id first, then member id; see
// member_order_less), skipping members not subscribed to its topic. Eager
// protocol only; no user data; stateless.
#pragma once

#include "client/consumer/partition_assignor.h"

namespace spool::client {

class RoundRobinAssignor : public PartitionAssignor {
 public:
  static constexpr std::string_view kName = "roundrobin";

  std::string_view name() const override { return kName; }
  Result<MemberPartitions> assign_partitions(const PartitionCounts& partitions_per_topic,
                                             const MemberSubscriptions& subscriptions) override;
};

}  // namespace spool::client
