// The topic configs leader.replication.throttled.replicas and
// follower.replication.throttled.replicas (KIP-73): "*" (every replica),
// "PartitionId:BrokerId,..." or "" (none). Pure functions; no failure beyond
// the error text of check_throttled_replicas.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace spool::config {

// The partitions of one topic whose replica on `broker_id` the value of
// leader.replication.throttled.replicas / follower.replication.throttled.replicas
// names: "*" all of them, "P:B,P:B..." the P with B == broker_id, "" none.
struct ThrottledPartitions {
  bool all = false;
  std::vector<int32_t> partitions;
  bool contains(int32_t p) const;
};
ThrottledPartitions throttled_partitions(const std::string& value, int32_t broker_id);

// Kafka's ThrottledReplicaListValidator: empty, "*", or comma-separated
// "partition:broker" pairs of non-negative integers (spaces around items
// allowed). An error message naming the value, or "" when valid.
std::string check_throttled_replicas(const std::string& value);

}  // namespace spool::config
