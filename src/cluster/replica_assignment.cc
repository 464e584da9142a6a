#include "cluster/replica_assignment.h"

#include <algorithm>
#include <limits>
#include <random>

#include "protocol/error_code.h"

namespace spool::cluster {

namespace {

using protocol::ErrorCode;

Status kafka_error(ErrorCode code, std::string msg) {
  return Status::error(std::move(msg), static_cast<int16_t>(code));
}

std::string join(const std::vector<int32_t>& ids, std::string_view sep = ", ") {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out.append(sep);
    out += std::to_string(ids[i]);
  }
  return out;
}

// AdminUtils.replicaIndex: the j-th follower's position after the first replica.
size_t replica_index(int64_t first_index, int64_t shift, int64_t j, int64_t n) {
  const int64_t distance = 1 + (shift + j) % (n - 1);
  return static_cast<size_t>((first_index + distance) % n);
}

ReplicaAssignment assign_rack_unaware(const std::vector<int32_t>& brokers, int32_t partitions, int32_t rf,
                                      AssignmentStart start, int64_t first_partition_id) {
  ReplicaAssignment out;
  const auto n = static_cast<int64_t>(brokers.size());
  int64_t shift = start.replica_shift;
  int64_t partition = first_partition_id;
  for (int32_t i = 0; i < partitions; ++i, ++partition) {
    if (partition > 0 && partition % n == 0) ++shift;
    const int64_t first = (partition + start.start_index) % n;
    std::vector<int32_t> replicas{brokers[static_cast<size_t>(first)]};
    for (int32_t j = 0; j < rf - 1; ++j) replicas.push_back(brokers[replica_index(first, shift, j, n)]);
    out[static_cast<int32_t>(partition)] = std::move(replicas);
  }
  return out;
}

ReplicaAssignment assign_rack_aware(const std::map<int32_t, std::string>& racks, int32_t partitions, int32_t rf,
                                    AssignmentStart start, int64_t first_partition_id) {
  const std::vector<int32_t> arranged = rack_alternated_broker_list(racks);
  std::set<std::string> rack_names;
  for (const auto& [id, rack] : racks) rack_names.insert(rack);
  const auto num_racks = static_cast<int64_t>(rack_names.size());
  const auto n = static_cast<int64_t>(arranged.size());
  ReplicaAssignment out;
  int64_t shift = start.replica_shift;
  int64_t partition = first_partition_id;
  for (int32_t i = 0; i < partitions; ++i, ++partition) {
    if (partition > 0 && partition % n == 0) ++shift;
    const int64_t first = (partition + start.start_index) % n;
    const int32_t leader = arranged[static_cast<size_t>(first)];
    std::vector<int32_t> replicas{leader};
    std::set<std::string> racks_used{racks.at(leader)};
    std::set<int32_t> brokers_used{leader};
    int64_t k = 0;
    for (int32_t j = 0; j < rf - 1; ++j) {
      // Terminates: the walk visits every broker but the leader within n - 1
      // steps, and rf <= n leaves one that passes both tests.
      while (true) {
        const int32_t broker = arranged[replica_index(first, shift * num_racks, k, n)];
        const std::string& rack = racks.at(broker);
        ++k;
        const bool rack_ok = racks_used.count(rack) == 0 || static_cast<int64_t>(racks_used.size()) == num_racks;
        const bool broker_ok = brokers_used.count(broker) == 0 || static_cast<int64_t>(brokers_used.size()) == n;
        if (rack_ok && broker_ok) {
          replicas.push_back(broker);
          racks_used.insert(rack);
          brokers_used.insert(broker);
          break;
        }
      }
    }
    out[static_cast<int32_t>(partition)] = std::move(replicas);
  }
  return out;
}

// Scala's toString of the mutable.HashMap[Int, ArrayBuffer[Int]] Kafka
// prints in "Duplicate replica assignment found: ...". Small int keys
// iterate in ascending order there too.
std::string scala_assignment_string(const ReplicaAssignment& a) {
  std::string out = "HashMap(";
  bool first = true;
  for (const auto& [p, replicas] : a) {
    if (!first) out += ", ";
    first = false;
    out += std::to_string(p) + " -> ArrayBuffer(" + join(replicas) + ")";
  }
  return out + ")";
}

std::vector<int32_t> unknown_brokers(const std::vector<std::vector<int32_t>>& lists, const std::set<int32_t>& known) {
  std::set<int32_t> unknown;
  for (const auto& list : lists) {
    for (int32_t b : list) {
      if (known.count(b) == 0) unknown.insert(b);
    }
  }
  return {unknown.begin(), unknown.end()};
}

bool has_duplicates(const std::vector<int32_t>& ids) {
  return std::set<int32_t>(ids.begin(), ids.end()).size() != ids.size();
}

}  // namespace

AssignmentStart random_assignment_start(uint64_t seed, size_t broker_count) {
  if (broker_count == 0) return {};
  std::mt19937_64 rng(seed);
  AssignmentStart s;
  s.start_index = static_cast<int32_t>(rng() % broker_count);
  s.replica_shift = static_cast<int32_t>(rng() % broker_count);
  return s;
}

std::vector<int32_t> rack_alternated_broker_list(const std::map<int32_t, std::string>& broker_racks) {
  std::map<std::string, std::vector<int32_t>> by_rack;  // racks by name; ids ascending (map order)
  for (const auto& [id, rack] : broker_racks) by_rack[rack].push_back(id);
  std::vector<int32_t> out;
  out.reserve(broker_racks.size());
  for (size_t round = 0; out.size() < broker_racks.size(); ++round) {
    for (const auto& [rack, ids] : by_rack) {
      if (round < ids.size()) out.push_back(ids[round]);
    }
  }
  return out;
}

Result<ReplicaAssignment> assign_replicas_to_brokers(const std::vector<BrokerMetadata>& brokers, int32_t partitions,
                                                     int32_t replication_factor, AssignmentStart start,
                                                     int32_t first_partition_id) {
  if (partitions <= 0) return kafka_error(ErrorCode::kInvalidPartitions, "Number of partitions must be larger than 0.");
  if (replication_factor <= 0) {
    return kafka_error(ErrorCode::kInvalidReplicationFactor, "Replication factor must be larger than 0.");
  }
  if (static_cast<size_t>(replication_factor) > brokers.size()) {
    return kafka_error(ErrorCode::kInvalidReplicationFactor,
                       "Replication factor: " + std::to_string(replication_factor) +
                           " larger than available brokers: " + std::to_string(brokers.size()) + ".");
  }
  if (static_cast<int64_t>(std::max(first_partition_id, 0)) + partitions - 1 > std::numeric_limits<int32_t>::max()) {
    return kafka_error(ErrorCode::kInvalidPartitions, "Partition ids would exceed 2147483647.");
  }
  std::vector<BrokerMetadata> sorted = brokers;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i].id == sorted[i - 1].id) {
      return kafka_error(ErrorCode::kUnknownServerError,
                         "Broker " + std::to_string(sorted[i].id) + " is listed twice in the broker list.");
    }
  }
  AssignmentStart s{std::max(start.start_index, 0), std::max(start.replica_shift, 0)};
  const int64_t first_id = std::max(first_partition_id, 0);
  const size_t with_rack = std::count_if(sorted.begin(), sorted.end(), [](const auto& b) { return b.rack.has_value(); });
  if (with_rack == 0) {
    std::vector<int32_t> ids;
    for (const auto& b : sorted) ids.push_back(b.id);
    return assign_rack_unaware(ids, partitions, replication_factor, s, first_id);
  }
  if (with_rack < sorted.size()) {
    return kafka_error(ErrorCode::kUnknownServerError,
                       "Not all brokers have rack information for replica rack aware assignment.");
  }
  std::map<int32_t, std::string> racks;
  for (const auto& b : sorted) racks[b.id] = *b.rack;
  return assign_rack_aware(racks, partitions, replication_factor, s, first_id);
}

Status validate_replica_assignment(const ReplicaAssignment& assignment, const std::set<int32_t>& known_brokers) {
  const auto invalid = [](std::string msg) { return kafka_error(ErrorCode::kInvalidReplicaAssignment, std::move(msg)); };
  std::set<size_t> sizes;
  for (const auto& [p, replicas] : assignment) sizes.insert(replicas.size());
  if (sizes.size() != 1) return invalid("All partitions should have the same number of replicas");
  for (const auto& [p, replicas] : assignment) {
    if (has_duplicates(replicas)) {
      return invalid("Duplicate replica assignment found: " + scala_assignment_string(assignment));
    }
  }
  // std::map keys are unique and sorted: consecutive from 0 iff the last key is size - 1.
  if (assignment.begin()->first != 0 || assignment.rbegin()->first != static_cast<int64_t>(assignment.size()) - 1) {
    return invalid("partitions should be a consecutive 0-based integer sequence");
  }
  if (*sizes.begin() == 0) return invalid("Cannot have replication factor of 0 for partition id 0.");
  std::vector<std::vector<int32_t>> lists;
  for (const auto& [p, replicas] : assignment) lists.push_back(replicas);
  const std::vector<int32_t> unknown = unknown_brokers(lists, known_brokers);
  if (!unknown.empty()) return invalid("Unknown broker(s) in replica assignment: " + join(unknown) + ".");
  return Status::ok();
}

Result<ReplicaAssignment> assign_new_partitions(std::string_view topic, const TopicAssignment& existing,
                                                int32_t new_total,
                                                const std::optional<std::vector<std::vector<int32_t>>>& explicit_assignment,
                                                const std::vector<BrokerMetadata>& brokers) {
  const std::string name(topic);
  if (existing.partitions.empty()) {
    return kafka_error(ErrorCode::kUnknownTopicOrPartition, "The topic '" + name + "' does not exist.");
  }
  for (const auto& [p, r] : existing.partitions) {
    if (!r.adding.empty() || !r.removing.empty()) {
      return kafka_error(ErrorCode::kReassignmentInProgress,
                         "A partition reassignment is in progress for the topic '" + name + "'.");
    }
  }
  const auto old_count = static_cast<int32_t>(existing.partitions.size());
  const int64_t increment = static_cast<int64_t>(new_total) - old_count;
  if (increment < 0) {
    return kafka_error(ErrorCode::kInvalidPartitions, "Topic currently has " + std::to_string(old_count) +
                                                          " partitions, which is higher than the requested " +
                                                          std::to_string(new_total) + ".");
  }
  if (increment == 0) {
    return kafka_error(ErrorCode::kInvalidPartitions, "Topic already has " + std::to_string(old_count) + " partitions.");
  }
  std::set<int32_t> known;
  for (const auto& b : brokers) known.insert(b.id);
  const auto invalid = [](std::string msg) { return kafka_error(ErrorCode::kInvalidReplicaAssignment, std::move(msg)); };
  if (explicit_assignment) {
    const std::vector<int32_t> unknown = unknown_brokers(*explicit_assignment, known);
    if (!unknown.empty()) return invalid("Unknown broker(s) in replica assignment: " + join(unknown) + ".");
    if (static_cast<int64_t>(explicit_assignment->size()) != increment) {
      return invalid("Increasing the number of partitions by " + std::to_string(increment) + " but " +
                     std::to_string(explicit_assignment->size()) + " assignments provided.");
    }
  }
  auto p0 = existing.partitions.find(0);
  if (p0 == existing.partitions.end() || existing.partitions.rbegin()->first != old_count - 1) {
    return kafka_error(ErrorCode::kUnknownServerError,
                       "Unexpected existing replica assignment for topic '" + name +
                           "': partition ids are not 0.." + std::to_string(old_count - 1) + ".");
  }
  const std::vector<int32_t>& p0_replicas = p0->second.replicas;
  if (p0_replicas.empty()) {
    return kafka_error(ErrorCode::kUnknownServerError,
                       "Unexpected existing replica assignment for topic '" + name + "': partition 0 has no replicas.");
  }
  const auto rf = static_cast<int32_t>(p0_replicas.size());
  if (explicit_assignment) {
    ReplicaAssignment out;
    std::vector<int32_t> bad_partitions;
    std::vector<int32_t> bad_factors;
    for (size_t i = 0; i < explicit_assignment->size(); ++i) {
      const auto partition = static_cast<int32_t>(old_count + static_cast<int64_t>(i));
      const std::vector<int32_t>& replicas = (*explicit_assignment)[i];
      if (replicas.empty()) {
        return invalid("Cannot have replication factor of 0 for partition id " + std::to_string(partition) + ".");
      }
      if (has_duplicates(replicas)) {
        return invalid("Duplicate brokers not allowed in replica assignment: " + join(replicas) +
                       " for partition id " + std::to_string(partition) + ".");
      }
      if (static_cast<int32_t>(replicas.size()) != rf) {
        bad_partitions.push_back(partition);
        bad_factors.push_back(static_cast<int32_t>(replicas.size()));
      }
      out[partition] = replicas;
    }
    if (!bad_partitions.empty()) {
      return invalid("Inconsistent replication factor between partitions, partition 0 has " + std::to_string(rf) +
                     " while partitions [" + join(bad_partitions) + "] have replication factors [" +
                     join(bad_factors) + "], respectively.");
    }
    return out;
  }
  std::vector<int32_t> ids(known.begin(), known.end());  // id order, as AdminZkClient sorts
  int32_t start_index = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= p0_replicas.front()) {
      start_index = static_cast<int32_t>(i);
      break;
    }
  }
  return assign_replicas_to_brokers(brokers, static_cast<int32_t>(increment), rf, AssignmentStart::fixed(start_index),
                                    old_count);
}

}  // namespace spool::cluster
