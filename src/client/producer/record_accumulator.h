// RecordAccumulator: the native producer's per-partition queues of batches
// (Kafka's RecordAccumulator).
//
// append() adds a record to the last open batch of its partition, or opens
// a new one (batch.size, or the record's size when larger), charging it to
// buffer.memory; when the memory is used up it waits up to max.block.ms for
// completed batches to free some, then fails with TIMEOUT. ready() tells the
// sender which leaders have a batch to send: a partition is sendable when
// its first batch is full or there is more than one, when linger.ms has
// passed since the batch opened (or the retry backoff since its last
// attempt: retry.backoff.ms doubling per attempt up to retry.backoff.max.ms),
// when an append waits for memory, or during flush() and close(). drain()
// takes at most one batch per partition for a node, round robin across its
// partitions, up to max.request.size, asking the DrainGate (the sender's
// idempotence rules) whether a partition may send now. reenqueue() puts a
// batch to retry back at the front of its queue, in base-sequence order.
// Sizes are uncompressed bytes (Kafka estimates the compressed size), so a
// compressed batch ends up smaller than batch.size, never larger.
//
// Threading: every method may be called from any thread (one mutex); the
// wakeup callback (given at construction) tells the sender's loop that a
// batch filled up or opened, and must not call back in.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "client/client_metadata.h"
#include "client/producer/producer_batch.h"
#include "util/clock.h"

namespace spool::client {

struct AccumulatorOptions {
  int32_t batch_size = 16384;
  int64_t linger_ms = 5;
  int64_t buffer_memory = 32 * 1024 * 1024;
  int64_t retry_backoff_ms = 100;
  int64_t retry_backoff_max_ms = 1000;
  int64_t delivery_timeout_ms = 120000;
  record::Compression compression = record::Compression::kNone;
  int compression_level = -1;
  std::shared_ptr<Clock> clock;  // null: system clock
};

// The sender's idempotence rules, asked during drain() under the
// accumulator's lock (must not call back into it).
class DrainGate {
 public:
  virtual ~DrainGate() = default;
  // May the first batch of its partition be sent now?
  virtual bool may_drain(const ProducerBatch& first) = 0;
  // The batch is taken: assign its sequence.
  virtual void on_drain(ProducerBatch& batch) = 0;
};

struct AppendResult {
  bool batch_full = false;  // the partition now has a full batch
  bool new_batch = false;   // a batch was opened
  bool last_full = false;   // the partition's last batch is full (no room left)
  size_t record_bytes = 0;  // what the record added
};

struct ReadyCheck {
  std::set<int32_t> nodes;          // leaders with something sendable
  int64_t next_check_ms = INT64_MAX;  // when to look again (from now)
  bool unknown_leaders = false;     // some queued partition has no known leader
};

class RecordAccumulator {
 public:
  RecordAccumulator(AccumulatorOptions options, std::function<void()> wakeup);

  // `record_size` is record_encoded_size() of the record (the producer
  // has it from its size checks). Blocks up to max_block_ms for memory.
  // Fails with TIMEOUT, or with the close status once closed; `callback` is
  // taken only on success (on a failure the caller still holds it, to
  // report the error).
  Result<AppendResult> append(const TopicPartition& tp, int64_t timestamp, const std::optional<Bytes>& key,
                              const std::optional<Bytes>& value, const std::vector<RecordHeader>& headers,
                              size_t record_size, SendCallback& callback, int64_t max_block_ms);

  ReadyCheck ready(const MetadataSnapshot& meta, int64_t now);
  std::vector<std::unique_ptr<ProducerBatch>> drain(const MetadataSnapshot& meta, int32_t node, int32_t max_size,
                                                    int64_t now, DrainGate& gate);
  void reenqueue(std::unique_ptr<ProducerBatch> batch, int64_t now);
  // Queued batches whose delivery timeout has passed, taken out.
  std::vector<std::unique_ptr<ProducerBatch>> expired(int64_t now);
  // Every queued batch, taken out (close without waiting, fatal errors).
  std::vector<std::unique_ptr<ProducerBatch>> abort_all();
  // A completed batch gives back its memory and leaves the incomplete set.
  void release(const ProducerBatch& batch);

  // flush(): every batch is ready at once until all batches that exist now
  // are complete (or the wait ends: false).
  bool flush(int64_t max_wait_ms);
  // Refuses further appends with `why` and makes everything ready.
  void close(const Status& why);
  bool has_incomplete() const;
  // Whether the partition's last queued batch is open and not full (Kafka's
  // "has an incomplete batch", for the sticky partitioner's switch).
  bool has_open_batch(const TopicPartition& tp) const;
  bool has_queued() const;
  // Backoff of a batch's next attempt.
  int64_t retry_backoff(int32_t attempts) const;

 private:
  using Queue = std::deque<std::unique_ptr<ProducerBatch>>;

  AccumulatorOptions options_;
  std::shared_ptr<Clock> clock_;
  std::function<void()> wakeup_;
  mutable std::mutex mu_;
  std::condition_variable memory_cv_;
  std::condition_variable complete_cv_;
  std::map<TopicPartition, Queue> queues_;
  std::map<int32_t, size_t> drain_index_;  // round-robin start per node
  int64_t used_memory_ = 0;
  int32_t memory_waiters_ = 0;
  uint64_t next_id_ = 1;
  std::set<uint64_t> incomplete_;  // ids of batches opened, not released
  int32_t flushing_ = 0;
  bool closed_ = false;
  Status close_status_;
};

}  // namespace spool::client
