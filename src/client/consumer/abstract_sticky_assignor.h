// AbstractStickyAssignor: what "sticky" and "cooperative-sticky" share
// (Kafka's AbstractStickyAssignor). An assignment is balanced (member loads
// differ by at most one when everyone subscribes to the same topics, and no
// partition could move to a less loaded eligible member otherwise) and keeps
// as many partitions as possible with their previous owners.
//
// Previous ownership comes from member_data(), which each subclass reads its
// own way (user data, or the subscription's owned partitions). Conflicting
// claims are settled by generation: the highest generation keeps a
// partition; claims of the same partition in the same generation are all
// dropped (the partition is reassigned as if unowned). Spool compares the
// generations member_data() reports on both sides (Kafka reads the other
// claimant's generation from its Subscription's field; they differ only for
// "sticky" members on subscription versions 0-1).
//
// The algorithms live in sticky_builders.h (sticky_constrained_builder.cc,
// sticky_general_builder.cc, partition_movements.h). Not thread-safe: the
// last call's partitions_transferring_ownership() and is_sticky() stay in
// the object, as in Kafka.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "client/consumer/partition_assignor.h"
#include "client/consumer/sticky_user_data.h"

namespace spool::client {

class AbstractStickyAssignor : public PartitionAssignor {
 public:
  Result<MemberPartitions> assign_partitions(const PartitionCounts& partitions_per_topic,
                                             const MemberSubscriptions& subscriptions) override;

  // A member's previous partitions and their generation.
  virtual MemberData member_data(const Subscription& subscription) const = 0;

  // Of the last assign_partitions(): partition -> new owner for each
  // partition taken from one member and given to another, when every member
  // subscribed to the same topics; nullopt otherwise (Kafka's
  // partitionsTransferringOwnership, null in the general case).
  const std::optional<std::map<TopicPartition, std::string>>& partitions_transferring_ownership() const {
    return transferring_;
  }
  // Of the last assign_partitions(): false if the general algorithm moved
  // partitions of one topic both ways between two members (Kafka's isSticky).
  bool is_sticky() const { return sticky_; }

 private:
  std::optional<std::map<TopicPartition, std::string>> transferring_;
  bool sticky_ = true;
};

}  // namespace spool::client
