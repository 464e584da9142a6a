// Rendering of `spool cluster describe`: the brokers, the controller, and the
// partitions that need attention (under-replicated: fewer in-sync replicas
// than replicas; offline: no live leader). Pure functions over plain
// structs, tested without a broker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "cli/topic_format.h"

namespace spool::cli {

struct BrokerInfo {
  int32_t id = -1;
  std::string host;
  int32_t port = 0;
  std::optional<std::string> rack;
};

struct ClusterInfo {
  std::string cluster_id;   // empty when the broker sent none
  int32_t controller_id = -1;
  std::vector<BrokerInfo> brokers;  // sorted by id
  std::vector<TopicInfo> topics;    // every topic with its partitions
};

struct PartitionProblem {
  std::string topic;
  PartitionInfo partition;
};

// Partitions whose ISR is smaller than their replica list, by topic and partition.
std::vector<PartitionProblem> under_replicated(const ClusterInfo& c);
// Partitions without a leader (leader -1, e.g. LEADER_NOT_AVAILABLE).
std::vector<PartitionProblem> offline(const ClusterInfo& c);

std::string format_cluster_describe(const ClusterInfo& c, OutputFormat fmt);

}  // namespace spool::cli
