// The two halves of the sticky algorithm behind AbstractStickyAssignor
// (abstract_sticky_assignor.h), as Kafka splits them:
//  - sticky_constrained_builder.cc: every member subscribes to the same
//    topics. Members keep what they own up to their quota (floor or ceil of
//    partitions / members), then the rest is dealt round-robin.
//  - sticky_general_builder.cc: subscriptions differ. Owned partitions are
//    kept, new ones go to the least loaded eligible member, then partitions
//    move from the most to the least loaded until balanced (undone if the
//    balance did not improve), with partition_movements.h steering moves.
// Inputs are the reconciled ownership: each member's previously owned,
// still-valid partitions, with conflicts already resolved by generation.
// Internal to the sticky assignors; pure functions; thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "client/consumer/partition_assignor.h"
#include "client/consumer/sticky_user_data.h"

namespace spool::client::sticky {

// Every member's entry in `owned` gets an entry in the result.
// `transferring` receives each partition given to a member other than its
// previous owner (or claimed by several owners in one generation).
Result<MemberPartitions> constrained_assign(const PartitionCounts& partitions_per_topic, const MemberPartitions& owned,
                                            const std::set<TopicPartition>& multiple_owners,
                                            std::map<TopicPartition, std::string>& transferring);

struct GeneralResult {
  MemberPartitions assignment;
  bool sticky = true;  // PartitionMovements::is_sticky() of the moves made
};

// `member_data` is every member's report (for previous owners of older
// generations); `max_generation` the highest generation reported.
GeneralResult general_assign(const PartitionCounts& partitions_per_topic, const MemberSubscriptions& subscriptions,
                             MemberPartitions owned, const std::map<std::string, MemberData>& member_data,
                             int32_t max_generation);

}  // namespace spool::client::sticky
