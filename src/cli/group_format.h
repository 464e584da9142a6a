// Rendering of `spool group` results (aligned text tables in the shape of
// kafka-consumer-groups.sh, or JSON) and the join of committed offsets, log
// end offsets and member assignments into describe rows. Pure functions over
// plain structs, so they are tested without a broker.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_args.h"
#include "cli/group_parse.h"

namespace spool::cli {

struct GroupListing {
  std::string group_id;
  std::string state;  // empty when the broker did not say
  std::string protocol_type;
};

struct GroupMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string host;
  std::vector<AssignedTopic> assignment;  // empty for non-"consumer" groups
};

// One describe row. Empty topic = a member without any assigned partition.
struct GroupOffsetRow {
  std::string topic;
  int32_t partition = -1;
  std::optional<int64_t> current_offset;  // none: never committed
  std::optional<int64_t> log_end_offset;  // none: unknown (e.g. the topic is gone)
  std::string member_id;                  // empty: not assigned to any member
  std::string host;
  std::string client_id;
};

struct GroupDescription {
  std::string group_id;
  int16_t error_code = 0;
  std::string state;
  std::string protocol_type;
  std::string protocol;  // assignment strategy, e.g. "range"
  int32_t coordinator_id = -1;
  std::string coordinator_host;
  int32_t coordinator_port = 0;
  std::vector<GroupMember> members;
  std::vector<GroupOffsetRow> offsets;  // sorted by topic, partition; unassigned members last
};

using TopicPartitionKey = std::pair<std::string, int32_t>;

// The LAG column: log end - current when both are known.
std::optional<int64_t> group_lag(const GroupOffsetRow& row);

// Joins assigned and committed partitions (each partition once, sorted), with
// a row per member that has no partition at all, like Kafka's tool.
std::vector<GroupOffsetRow> build_offset_rows(const std::vector<GroupMember>& members,
                                              const std::map<TopicPartitionKey, int64_t>& committed,
                                              const std::map<TopicPartitionKey, int64_t>& log_end);

// Every partition describe needs a log end offset for.
std::vector<TopicPartitionKey> partitions_of(const std::vector<GroupMember>& members,
                                             const std::map<TopicPartitionKey, int64_t>& committed);

std::string format_group_list(const std::vector<GroupListing>& groups, OutputFormat fmt);

// Describe: `view` is "offsets" (default), "members" or "state". JSON always
// carries the whole description, whatever the view.
std::string format_group_describe(const std::vector<GroupDescription>& groups, const std::string& view, bool verbose,
                                  OutputFormat fmt);

// A short explanation for group-related error codes ("" when none applies).
std::string group_error_hint(int16_t code);
// "NAME: hint" or just "NAME".
std::string group_error_text(int16_t code);

struct GroupOpResult {
  std::string group_id;
  int16_t error_code = 0;
};
std::string format_group_delete(const std::vector<GroupOpResult>& results, OutputFormat fmt);

struct ResetPlanRow {
  std::string group_id;
  std::string topic;
  int32_t partition = 0;
  std::optional<int64_t> current_offset;
  std::optional<int64_t> new_offset;  // none: no target (see error)
  std::string error;                  // planning or commit failure, "" = fine
};
std::string format_reset_plan(const std::vector<ResetPlanRow>& rows, OutputFormat fmt);

struct OffsetDeleteRow {
  std::string topic;
  int32_t partition = 0;  // -1: the whole topic (e.g. it does not exist)
  int16_t error_code = 0;
};
// group_error: the response's top-level error (applies to every partition).
std::string format_offset_delete(const std::string& group_id, int16_t group_error,
                                 const std::vector<OffsetDeleteRow>& rows, OutputFormat fmt);

}  // namespace spool::cli
