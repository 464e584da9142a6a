// Rendering of topic results for `spool topic` (aligned text tables or JSON)
// and parsing of --config key=value lists. Pure functions over plain structs,
// so they are tested without a broker.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "util/status.h"

namespace spool::cli {

struct PartitionInfo {
  int32_t partition = 0;
  int32_t leader = -1;
  int32_t leader_epoch = -1;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
  std::vector<int32_t> offline;
  int16_t error_code = 0;
};

struct TopicInfo {
  std::string name;
  bool internal = false;
  int16_t error_code = 0;
  std::vector<PartitionInfo> partitions;  // sorted by partition
  bool configs_known = false;             // the broker answered DescribeConfigs
  std::map<std::string, std::string> configs;  // topic-level overrides only
};

// Kafka's name for an error code, e.g. 36 -> "TOPIC_ALREADY_EXISTS".
std::string kafka_error_name(int16_t code);

// rows[0] is the header; columns are padded to the widest cell.
std::string format_table(const std::vector<std::vector<std::string>>& rows);

std::string format_topic_list(const std::vector<TopicInfo>& topics, OutputFormat fmt);
std::string format_topic_describe(const std::vector<TopicInfo>& topics, OutputFormat fmt);

// Result line(s) of create/delete: one entry per topic, with error name and message when it failed.
struct TopicOpResult {
  std::string name;
  int16_t error_code = 0;
  std::string error_message;
  int32_t partitions = -1;
  int32_t replication_factor = -1;
};
std::string format_topic_op(const std::string& verb, const std::vector<TopicOpResult>& results, OutputFormat fmt);

// Result of delete-records for one partition: the log start offset afterwards.
struct DeleteRecordsResult {
  std::string topic;
  int32_t partition = 0;
  int16_t error_code = 0;
  int64_t low_watermark = -1;
};
std::string format_delete_records(const std::vector<DeleteRecordsResult>& results, OutputFormat fmt);

// "k=v" items -> map; error names the malformed item or a repeated key.
Result<std::map<std::string, std::string>> parse_config_pairs(const std::vector<std::string>& items);

}  // namespace spool::cli
