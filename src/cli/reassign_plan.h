// The files and plans of `spool topic reassign`, as Kafka's
// kafka-reassign-partitions.sh reads and writes them:
//   topics to move   {"topics":[{"topic":"foo"},...],"version":1}
//   a reassignment   {"version":1,"partitions":[{"topic":"foo","partition":0,
//                    "replicas":[1,2],"log_dirs":["any","any"]},...]}
// and the plan computations: a balanced proposal for a broker list (Kafka's
// generateAssignment: assignReplicasToBrokers per topic, keeping each
// topic's partition count and replication factor, rack-aware unless told
// not to), and the throttled-replica lists of a move (Kafka's
// calculateLeaderThrottles / calculateFollowerThrottles: the current
// replicas of each moving partition throttle as leaders, the replicas it
// gains as followers). Pure functions; errors name the file's field.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli/cluster_format.h"
#include "util/status.h"

namespace spool::cli {

struct PlanPartition {
  std::string topic;
  int32_t partition = 0;
  std::vector<int32_t> replicas;
  bool operator==(const PlanPartition&) const = default;
};
using Plan = std::vector<PlanPartition>;  // sorted by topic, then partition

Result<std::vector<std::string>> parse_topics_to_move(const std::string& json);
// A partition listed twice, an empty or repeated replica list, a negative id: an error.
Result<Plan> parse_reassignment(const std::string& json);
std::string format_reassignment(const Plan& plan);

// The current replicas of every partition of `topics` (all must exist).
Result<Plan> current_assignment(const ClusterInfo& cluster, const std::vector<std::string>& topics);

// The proposal for `topics` over `brokers` (each must be live in `cluster`);
// `seed` draws Kafka's random start (printed by the caller).
Result<Plan> generate_plan(const ClusterInfo& cluster, const std::vector<std::string>& topics,
                           const std::vector<int32_t>& brokers, bool rack_aware, uint64_t seed);

// Topic -> "p:b,..." for the partitions of `target` whose replicas differ
// from `current`: their current replicas (leader side), their new ones
// (follower side). Topics without a move are left out.
struct Throttles {
  std::map<std::string, std::string> leader;
  std::map<std::string, std::string> follower;
  std::vector<int32_t> brokers;  // every broker of a moving partition, old or new, sorted
};
Throttles plan_throttles(const Plan& current, const Plan& target);

}  // namespace spool::cli
