// GroupAdmin: the calls behind `spool group`, on client::Admin (which routes
// them as Kafka's admin client does: group requests to the group's
// coordinator, ListGroups to every broker, ListOffsets to each partition's
// leader, and retries a loading or moved coordinator until the timeout).
// This class turns the protocol answers into the CLI's structs
// (group_format.h) and decides what counts as a failure of the command.
// Failures come back as Status with Kafka's error code when the broker gave
// one. Connects lazily: an unreachable broker fails the first call.
// Single-threaded.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/group_format.h"
#include "client/admin/admin.h"
#include "util/status.h"

namespace spool::cli {

// ListOffsets answer for one partition.
struct OffsetLookup {
  int16_t error_code = 0;
  int64_t offset = -1;  // -1: none (e.g. no record at/after a timestamp)
};

class GroupAdmin {
 public:
  // An Admin for --bootstrap-server (cli/admin_connect.h); fails only on a
  // bad address.
  static Result<GroupAdmin> open(const std::string& bootstrap, int timeout_ms);

  // Every group on every broker; `states` filters (canonical names) on the
  // broker when it serves ListGroups v4, else here after DescribeGroups.
  Result<std::vector<GroupListing>> list_groups(const std::vector<std::string>& states);

  // State, protocol, members (assignment decoded for "consumer" groups) and
  // the coordinator; no offsets. A group that does not exist comes back with
  // state "Dead" or error GROUP_ID_NOT_FOUND, as the broker says.
  Result<GroupDescription> describe_group(const std::string& group);

  // Committed offsets of every partition the group has one for.
  Result<std::map<TopicPartitionKey, int64_t>> committed_offsets(const std::string& group);

  // ListOffsets at `timestamp` (-1 latest, -2 earliest, else ms) via each leader.
  Result<std::map<TopicPartitionKey, OffsetLookup>> list_offsets(const std::vector<TopicPartitionKey>& partitions,
                                                                 int64_t timestamp);

  // Partition ids of a topic (Metadata); error UNKNOWN_TOPIC_OR_PARTITION if absent.
  Result<std::vector<int32_t>> topic_partitions(const std::string& topic);

  // Group-wide error code (0 = the request was accepted) per group.
  Result<int16_t> delete_group(const std::string& group);

  // OffsetCommit as an admin (generation -1, no member): per-partition errors.
  Result<std::map<TopicPartitionKey, int16_t>> commit_offsets(const std::string& group,
                                                              const std::map<TopicPartitionKey, int64_t>& offsets);

  // OffsetDelete: top-level error and per-partition errors.
  struct OffsetDeleteResult {
    int16_t error_code = 0;
    std::map<TopicPartitionKey, int16_t> partitions;
  };
  Result<OffsetDeleteResult> delete_offsets(const std::string& group, const std::vector<TopicPartitionKey>& partitions);

 private:
  explicit GroupAdmin(std::unique_ptr<client::Admin> admin) : admin_(std::move(admin)) {}

  std::unique_ptr<client::Admin> admin_;
};

}  // namespace spool::cli
