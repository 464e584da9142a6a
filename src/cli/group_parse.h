// Pure parsing and arithmetic behind `spool group` (no I/O, unit-tested):
// topic[:partitions] specs, ISO-8601 date-times, the ConsumerProtocol
// assignment carried in DescribeGroups, the reset-offsets target rule, and the
// cross-option checks of GroupArgs. Every function validates its input and
// returns an error Status with a message fit for the user; none throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::cli {

// "orders" (every partition) or "orders:0,2" (those partitions, sorted, unique).
struct TopicPartitionSpec {
  std::string topic;
  std::vector<int32_t> partitions;  // empty = every partition of the topic
};
Result<TopicPartitionSpec> parse_topic_partitions(const std::string& spec);

// YYYY-MM-DDTHH:MM:SS[.fff] with an optional zone: Z, +HH:MM, -HH:MM, +HHMM
// or +HH. Without a zone the local time zone applies, as in Kafka's tool.
// Returns milliseconds since the Unix epoch.
Result<int64_t> parse_iso8601_ms(const std::string& text);

// One topic's partitions in a consumer assignment.
struct AssignedTopic {
  std::string topic;
  std::vector<int32_t> partitions;
};
// Decodes Kafka's ConsumerProtocolAssignment (int16 version, array of
// {string topic, int32 array partitions}, nullable bytes user data). An
// empty buffer is an empty assignment (member not yet synced).
Result<std::vector<AssignedTopic>> decode_consumer_assignment(ByteSpan data);
// The encoder, for tests and tools that fabricate assignments.
Bytes encode_consumer_assignment(const std::vector<AssignedTopic>& topics, int16_t version = 0);

// The reset rule of kafka-consumer-groups: which offset a partition moves to.
enum class ResetKind { kEarliest, kLatest, kCurrent, kToOffset, kShiftBy, kToDatetime };
struct ResetSpec {
  ResetKind kind = ResetKind::kEarliest;
  int64_t value = 0;  // kToOffset: the offset; kShiftBy: the delta; kToDatetime: ms since epoch
};
// The spec chosen by the (already validated) arguments.
ResetSpec reset_spec_of(const GroupArgs& args);

struct PartitionOffsets {
  std::optional<int64_t> committed;    // the group's current offset, if any
  int64_t log_start = 0;
  int64_t log_end = 0;
  std::optional<int64_t> at_datetime;  // ListOffsets by timestamp; nullopt = no record at/after it
};
// New offset, clamped to [log_start, log_end] as Kafka does. Fails for
// --shift-by / --to-current on a partition without a committed offset.
Result<int64_t> reset_target(const ResetSpec& spec, const PartitionOffsets& p);

// Cross-option rules CLI11 cannot express (one reset spec, --topic xor
// --all-topics, ...). Error message names the options.
Status validate_group_args(const GroupArgs& args);

// Canonical Kafka group state name for a case-insensitive input
// ("stable" -> "Stable"), or an error listing the valid names.
Result<std::string> canonical_group_state(const std::string& s);

}  // namespace spool::cli
