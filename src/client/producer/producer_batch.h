// ProducerBatch: one batch of records for one partition, from its first
// append in the accumulator until its answer (Kafka's ProducerBatch).
//
// It owns the batch bytes (record::BatchAppender) and the callbacks of its
// records. The accumulator appends while the batch is open; the sender
// closes it when it drains it, stamps the producer id, epoch and base
// sequence (again after an epoch bump), sends it, and completes it once:
// every record's callback runs with its offset (base offset + index) or
// with the batch's error. Not thread-safe: the accumulator's lock guards it
// while it is queued, the sender's thread owns it once drained.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "client/producer/producer_record.h"
#include "record/batch_appender.h"
#include "util/topic_partition.h"

namespace spool::client {

// The record's headers as the batch encoder takes them (views into `headers`).
std::vector<record::AppendHeader> append_headers(const std::vector<RecordHeader>& headers);
// What the record adds to a batch, at most (record::BatchAppender::record_size).
size_t record_encoded_size(const std::optional<Bytes>& key, const std::optional<Bytes>& value,
                           const std::vector<RecordHeader>& headers);

class ProducerBatch {
 public:
  ProducerBatch(TopicPartition tp, record::Compression compression, int level, size_t reserve, int64_t now_ms);

  // Appends a record; `callback` may be empty.
  void append(int64_t timestamp, const std::optional<Bytes>& key, const std::optional<Bytes>& value,
              const std::vector<RecordHeader>& headers, SendCallback callback);
  // Whether a record of `record_size` bytes still fits under `batch_size`
  // (the first record always fits).
  bool has_room_for(size_t record_size, int32_t batch_size) const;
  bool is_full(int32_t batch_size) const { return records_.estimated_size() >= static_cast<size_t>(batch_size); }

  // Closes the records (compression); idempotent.
  Status close() { return records_.close(); }
  void set_producer_state(int64_t producer_id, int16_t epoch, int32_t base_sequence, bool transactional);

  // Runs every callback: offsets from `base_offset` (-1: unknown), the
  // timestamp from `log_append_time` when it is not -1. Once.
  void complete(int64_t base_offset, int64_t log_append_time, const Status& error);
  bool done() const { return done_; }

  const TopicPartition& tp() const { return tp_; }
  const record::BatchAppender& records() const { return records_; }
  // The closed batch's bytes (the sender sends a view of them).
  Bytes& bytes() { return records_.bytes(); }
  int32_t record_count() const { return records_.record_count(); }
  size_t size_bytes() const { return records_.estimated_size(); }

  uint64_t id = 0;           // the accumulator's, in opening order
  int64_t created_ms = 0;
  int64_t last_attempt_ms = 0;
  int32_t attempts = 0;      // sends so far
  bool retry = false;        // re-queued after a failed attempt
  size_t memory = 0;         // charged against buffer.memory
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;  // -1: no sequence yet
  bool sequence_reset = false;  // its sequence was rewritten after an epoch bump

 private:
  struct Thunk {
    SendCallback callback;
    int32_t index = 0;
    int64_t timestamp = 0;
    int32_t key_size = -1;
    int32_t value_size = -1;
  };

  TopicPartition tp_;
  record::BatchAppender records_;
  std::vector<Thunk> thunks_;
  bool done_ = false;
};

}  // namespace spool::client
