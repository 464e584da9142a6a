// GroupAdmin: the protocol calls behind `spool group`, routed like Kafka's
// admin client: group requests go to the group's coordinator
// (FindCoordinator), ListGroups to every broker, ListOffsets to each
// partition's leader (Metadata). Holds one BlockingClient per broker address,
// opened on first use. Failures come back as Status with Kafka's error code
// when the broker gave one; retriable coordinator errors (loading, not
// available, not coordinator) are retried until the timeout. Single-threaded.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/group_format.h"
#include "client/blocking_client.h"
#include "util/status.h"

namespace spool::cli {

struct BrokerAddress {
  int32_t node_id = -1;
  std::string host;
  int32_t port = 0;
};

// ListOffsets answer for one partition.
struct OffsetLookup {
  int16_t error_code = 0;
  int64_t offset = -1;  // -1: none (e.g. no record at/after a timestamp)
};

class GroupAdmin {
 public:
  static Result<GroupAdmin> connect(const std::string& bootstrap, int timeout_ms);

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
  GroupAdmin(std::string bootstrap_addr, int timeout_ms)
      : bootstrap_addr_(std::move(bootstrap_addr)), timeout_ms_(timeout_ms) {}
  Result<client::BlockingClient*> client_for(const std::string& host, int32_t port);
  Result<client::BlockingClient*> bootstrap();
  Status refresh_metadata(const std::vector<std::string>& topics);
  Result<BrokerAddress> find_coordinator(const std::string& group);
  // Runs `fn` against the group's coordinator; retries when it reports a
  // retriable coordinator error (returned as Status with that code).
  template <class Fn>
  auto with_coordinator(const std::string& group, Fn fn) -> decltype(fn(std::declval<client::BlockingClient&>()));

  std::string bootstrap_addr_;
  int timeout_ms_;
  std::map<std::string, std::unique_ptr<client::BlockingClient>> clients_;  // by "host:port"
  std::map<int32_t, BrokerAddress> brokers_;
  std::map<std::string, std::map<int32_t, int32_t>> leaders_;  // topic -> partition -> leader node
  std::map<std::string, int16_t> topic_errors_;
  std::map<std::string, BrokerAddress> coordinators_;
};

}  // namespace spool::cli
