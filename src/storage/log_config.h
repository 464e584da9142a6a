// Per-topic effective storage configuration and the value types Log hands
// back. Plain data; copy freely.
#pragma once

#include <cstdint>
#include <limits>

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
};

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
