// replica_assignment: where a new topic's or new partition's replicas go,
// as Kafka's AdminUtils.assignReplicasToBrokers (server-common, 3.6) and the
// checks AdminZkClient / ZkAdminManager run on CreateTopics and
// CreatePartitions in ZooKeeper mode.
//
// Algorithm (rack-unaware, no broker has a rack): the first replica of
// partition p is broker[(p + start_index) % n]; the others follow it at
// increasing distances 1 + (shift + j) % (n - 1), and the shift grows by one
// each time p passes a multiple of n, so consecutive rounds do not repeat the
// same follower sets. Rack-aware (every broker has a rack): the same walk
// over a rack-alternated broker list (racks sorted by name, brokers by id,
// one from each rack in turn), skipping a broker whose rack already holds a
// replica until every rack has one, and a broker already chosen until every
// broker has one. Some brokers with a rack and some without is an error.
//
// Contract
// - Pure functions: the two random numbers Kafka draws (start index and
//   replica shift) are an explicit AssignmentStart, so every result is
//   reproducible; random_assignment_start() derives them from a seed the
//   caller logs. Brokers are taken in id order (Kafka's AdminZkClient sorts;
//   its CreateTopics path uses the metadata cache's order).
// - Failures are a Status with Kafka's error code and message (the codes of
//   protocol/error_code.h): INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR,
//   INVALID_REPLICA_ASSIGNMENT, UNKNOWN_TOPIC_OR_PARTITION,
//   REASSIGNMENT_IN_PROGRESS; UNKNOWN_SERVER_ERROR where Kafka throws an
//   AdminOperationException (mixed racks, a broken existing assignment).
// - Arithmetic is 64-bit: no overflow for any int32 input. The caller bounds
//   the partition count (memory is O(partitions x RF)).
// Stateless, thread-safe, never throw.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/zk_data.h"
#include "util/status.h"

namespace spool::cluster {

struct BrokerMetadata {
  int32_t id = 0;
  std::optional<std::string> rack;  // broker.rack
};

// partition id -> replicas, preferred leader first.
using ReplicaAssignment = std::map<int32_t, std::vector<int32_t>>;

// Kafka's two random draws: where the round-robin starts, and the first
// follower distance. Kafka's fixedStartIndex sets both to the same value.
struct AssignmentStart {
  int32_t start_index = 0;    // >= 0, taken modulo the broker count
  int32_t replica_shift = 0;  // >= 0
  static AssignmentStart fixed(int32_t index) { return {index, index}; }
};

// Both draws uniform in [0, broker_count) from a std::mt19937_64 seeded with
// `seed` (the same seed gives the same start on every platform).
AssignmentStart random_assignment_start(uint64_t seed, size_t broker_count);

// Kafka's AdminUtils.getRackAlternatedBrokerList: racks in name order, each
// rack's brokers in id order, taken one per rack in turn.
std::vector<int32_t> rack_alternated_broker_list(const std::map<int32_t, std::string>& broker_racks);

// AdminUtils.assignReplicasToBrokers for `partitions` partitions numbered
// from first_partition_id. Errors: partitions <= 0 -> INVALID_PARTITIONS
// "Number of partitions must be larger than 0."; rf <= 0 ->
// INVALID_REPLICATION_FACTOR "Replication factor must be larger than 0.";
// rf > brokers -> INVALID_REPLICATION_FACTOR "Replication factor: X larger
// than available brokers: Y."; racks on some brokers only ->
// UNKNOWN_SERVER_ERROR; a broker id listed twice -> UNKNOWN_SERVER_ERROR;
// ids past INT32_MAX -> INVALID_PARTITIONS "Partition ids would exceed
// 2147483647." (Kafka's int arithmetic would wrap).
Result<ReplicaAssignment> assign_replicas_to_brokers(const std::vector<BrokerMetadata>& brokers, int32_t partitions,
                                                     int32_t replication_factor, AssignmentStart start,
                                                     int32_t first_partition_id = 0);

// CreateTopics with an explicit assignment (AdminZkClient.validateTopicCreate),
// all INVALID_REPLICA_ASSIGNMENT, checked in Kafka's order:
//   "All partitions should have the same number of replicas"
//   "Duplicate replica assignment found: HashMap(0 -> ArrayBuffer(1, 1), ...)"
//   "partitions should be a consecutive 0-based integer sequence"
// then two checks Kafka's ZooKeeper mode skips (its KRaft mode has them):
//   "Cannot have replication factor of 0 for partition id P."
//   "Unknown broker(s) in replica assignment: 5, 7." (ids not in known_brokers)
Status validate_replica_assignment(const ReplicaAssignment& assignment, const std::set<int32_t>& known_brokers);

// CreatePartitions: the assignment of the partitions added to `existing`
// (ids existing.size() .. new_total - 1), as ZkAdminManager.createPartitions
// and AdminZkClient.createNewPartitionsAssignment. `explicit_assignment` is
// the request's list, one replica list per new partition in order; without
// it the replicas continue Kafka's round-robin: start index = position (in
// id order) of the first broker whose id >= partition 0's first replica,
// used as both start index and shift, RF = partition 0's replica count.
// Errors in Kafka's order: no partitions -> UNKNOWN_TOPIC_OR_PARTITION "The
// topic 'T' does not exist."; a partition with adding/removing replicas ->
// REASSIGNMENT_IN_PROGRESS; new_total below / equal to the current count ->
// INVALID_PARTITIONS "Topic currently has X partitions, which is higher than
// the requested Y." / "Topic already has X partitions."; then for an explicit
// list INVALID_REPLICA_ASSIGNMENT "Unknown broker(s) in replica assignment:
// ...", "Increasing the number of partitions by N but M assignments
// provided.", "Cannot have replication factor of 0 for partition id P.",
// "Duplicate brokers not allowed in replica assignment: 1, 1 for partition id
// P.", "Inconsistent replication factor between partitions, partition 0 has
// R while partitions [..] have replication factors [..], respectively.";
// existing ids not 0..n-1 -> UNKNOWN_SERVER_ERROR; and the errors of
// assign_replicas_to_brokers.
Result<ReplicaAssignment> assign_new_partitions(std::string_view topic, const TopicAssignment& existing,
                                                int32_t new_total,
                                                const std::optional<std::vector<std::vector<int32_t>>>& explicit_assignment,
                                                const std::vector<BrokerMetadata>& brokers);

}  // namespace spool::cluster
