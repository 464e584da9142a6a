// RangeAssignor ("range"): per topic, the partitions in order are cut into
// contiguous ranges over the topic's subscribers in member order (static
// members by group.instance.id first, then member id; see
// member_order_less); when the count does not divide evenly the first members
// get one extra. Topics with the same partition count and subscribers are
// therefore co-partitioned. Eager protocol only; no user data; stateless.
// Kafka's rack-aware variant is not done (partition_assignor.h).
#pragma once

#include "client/consumer/partition_assignor.h"

namespace spool::client {

class RangeAssignor : public PartitionAssignor {
 public:
  static constexpr std::string_view kName = "range";

  std::string_view name() const override { return kName; }
  Result<MemberPartitions> assign_partitions(const PartitionCounts& partitions_per_topic,
                                             const MemberSubscriptions& subscriptions) override;
};

}  // namespace spool::client
