// Per-topic effective storage configuration and the value types Log hands
// back. Plain data; copy freely.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "util/bytes.h"

namespace spool::storage {

struct LogConfig {  // Kafka topic-level names in comments
  int64_t segment_bytes = 1073741824;        // segment.bytes
  int64_t segment_ms = 604800000;            // segment.ms
  int64_t retention_ms = 604800000;          // retention.ms (-1 = forever)
  int64_t retention_bytes = -1;              // retention.bytes (-1 = no limit)
  int32_t index_interval_bytes = 4096;       // index.interval.bytes
  int32_t segment_index_bytes = 10485760;    // segment.index.bytes
  int64_t flush_messages = std::numeric_limits<int64_t>::max();  // flush.messages
  int64_t flush_ms = std::numeric_limits<int64_t>::max();        // flush.ms
  bool durable_writes = true;                // durable.writes (Spool's own)
  bool timestamp_log_append_time = false;    // message.timestamp.type=LogAppendTime
  // cleanup.policy: "delete" | "compact" | "compact,delete" (see parse_cleanup_policy)
  bool cleanup_policy_delete = true;
  bool cleanup_policy_compact = false;
  int64_t delete_retention_ms = 86400000;    // delete.retention.ms (tombstone lifetime after cleaning)
  double min_cleanable_dirty_ratio = 0.5;    // min.cleanable.dirty.ratio
  int64_t min_compaction_lag_ms = 0;         // min.compaction.lag.ms
  int64_t max_compaction_lag_ms = std::numeric_limits<int64_t>::max();  // max.compaction.lag.ms
};

// Sets the two cleanup_policy_* flags from a cleanup.policy value (a comma
// list of "delete" and "compact", spaces allowed, order free, not empty).
// Returns false and leaves `c` unchanged for anything else.
inline bool parse_cleanup_policy(std::string_view v, LogConfig& c) {
  bool del = false, compact = false, any = false;
  while (true) {
    size_t comma = v.find(',');
    std::string_view item = v.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == "delete") del = true;
    else if (item == "compact") compact = true;
    else return false;
    any = true;
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  if (!any) return false;
  c.cleanup_policy_delete = del;
  c.cleanup_policy_compact = compact;
  return true;
}

struct AppendResult {
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t log_append_time_ms = -1;  // -1 unless LogAppendTime
};

struct ReadResult {
  Bytes records;
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
};

}  // namespace spool::storage
