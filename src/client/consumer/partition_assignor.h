// PartitionAssignor: the client-side assignment strategy a consumer group's
// leader runs (Kafka's ConsumerPartitionAssignor). Spool ships four, by
// Kafka name: "range" (range_assignor.h), "roundrobin"
// (round_robin_assignor.h), "sticky" (sticky_assignor.h) and
// "cooperative-sticky" (cooperative_sticky_assignor.h); the last two share
// abstract_sticky_assignor.h.
//
// Every member computes its own subscription_user_data() for JoinGroup; the
// leader calls assign() with every member's decoded Subscription; each member
// then gets on_assignment() with its Assignment and the generation, which the
// sticky assignors remember for their next subscription.
//
// Outputs are deterministic: members and topics are visited in sorted order
// (Kafka visits some in HashMap order). Rack-aware assignment (KIP-881) is not
// done: the input carries partition counts, not replica racks, so a
// subscription's rack_id is carried but unused.
//
// Threading: an assignor is used by one consumer's group-membership thread;
// not thread-safe. Failure: an internal inconsistency the sticky algorithm
// detects (Kafka throws IllegalStateException) comes back as a Status.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "client/consumer/consumer_protocol.h"
#include "util/status.h"
#include "util/topic_partition.h"

namespace spool::client {

enum class RebalanceProtocol : int8_t { kEager = 0, kCooperative = 1 };

using PartitionCounts = std::map<std::string, int32_t>;              // topic -> partitions
using MemberSubscriptions = std::map<std::string, Subscription>;     // member id -> subscription
using MemberPartitions = std::map<std::string, std::vector<TopicPartition>>;
using MemberAssignments = std::map<std::string, Assignment>;

class PartitionAssignor {
 public:
  virtual ~PartitionAssignor() = default;

  virtual std::string_view name() const = 0;
  // In preference order (Kafka's supportedProtocols).
  virtual std::vector<RebalanceProtocol> supported_protocols() const { return {RebalanceProtocol::kEager}; }
  // User data for this member's next Subscription; nullopt = null.
  virtual std::optional<Bytes> subscription_user_data(const std::set<std::string>& topics) const {
    (void)topics;
    return std::nullopt;
  }
  // This member's new assignment, in `generation`.
  virtual void on_assignment(const Assignment& assignment, int32_t generation) {
    (void)assignment;
    (void)generation;
  }

  // The leader's step. `cluster` may hold any topics: only those some member
  // subscribes to and that have partitions are assigned. Every member gets
  // an entry (empty when it gets nothing); no user data is produced.
  Result<MemberAssignments> assign(const PartitionCounts& cluster, const MemberSubscriptions& subscriptions);

  // The algorithm proper (Kafka's assignPartitions), on the already-filtered
  // partition counts; public for tests.
  virtual Result<MemberPartitions> assign_partitions(const PartitionCounts& partitions_per_topic,
                                                     const MemberSubscriptions& subscriptions) = 0;
};

// Kafka's MemberInfo order for range and round-robin: members with a
// group.instance.id first, by instance id; then the others by member id.
bool member_order_less(const std::string& member_a, const Subscription& a, const std::string& member_b,
                       const Subscription& b);

}  // namespace spool::client
