// The native consumer's value types (Kafka's ConsumerRecord,
// OffsetAndTimestamp, ConsumerRebalanceListener; OffsetAndMetadata is
// client/offset_and_metadata.h) and the
// enums of its settings (auto.offset.reset, isolation.level).
//
// A ConsumerRecord owns its bytes (copied out of the fetch response), so it
// outlives the consumer's buffers. Plain values; thread-compatible.
//
// ConsumerRebalanceListener: its methods run on the thread that called
// Consumer::poll() (or close()/unsubscribe()), inside that call, as in Java;
// they may call the consumer (commit_sync, seek, position...). Not calling
// poll() holds a rebalance up: the group waits for the revocation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/offset_and_metadata.h"
#include "client/offset_and_metadata.h"
#include "client/producer/producer_record.h"
#include "util/bytes.h"
#include "util/topic_partition.h"

namespace spool::client {

enum class IsolationLevel : int8_t { kReadUncommitted = 0, kReadCommitted = 1 };
// auto.offset.reset: none fails poll() with NoOffsetForPartition.
enum class OffsetResetStrategy : int8_t { kNone, kEarliest, kLatest };

// ListOffsets timestamps (Kafka's ListOffsetsRequest.EARLIEST/LATEST_TIMESTAMP).
inline constexpr int64_t kEarliestTimestamp = -2;
inline constexpr int64_t kLatestTimestamp = -1;

struct ConsumerRecord {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp = -1;
  bool log_append_time = false;  // timestamp type: LogAppendTime, else CreateTime
  int32_t leader_epoch = -1;     // the batch's partition leader epoch; -1 unknown
  std::optional<Bytes> key;
  std::optional<Bytes> value;
  std::vector<RecordHeader> headers;
};

struct OffsetAndTimestamp {
  int64_t offset = 0;
  int64_t timestamp = -1;
  int32_t leader_epoch = -1;
  bool operator==(const OffsetAndTimestamp&) const = default;
};

class ConsumerRebalanceListener {
 public:
  virtual ~ConsumerRebalanceListener() = default;
  // Before partitions go to another member (eager: all of them, before
  // rejoining; cooperative: only those that move).
  virtual void on_partitions_revoked(const std::vector<TopicPartition>& partitions) = 0;
  // After a rebalance, with the partitions newly added to this member.
  virtual void on_partitions_assigned(const std::vector<TopicPartition>& partitions) = 0;
  // When the membership was lost (session expired, fenced): the partitions
  // may already belong to others, so nothing should be committed. Java's
  // default calls on_partitions_revoked.
  virtual void on_partitions_lost(const std::vector<TopicPartition>& partitions) {
    on_partitions_revoked(partitions);
  }
};

}  // namespace spool::client
