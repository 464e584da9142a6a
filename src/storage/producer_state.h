// Producer state of one partition log: what the broker remembers about every
// idempotent producer (producer id >= 0) that wrote to it, so that a retried
// batch is answered from memory instead of being appended twice (KIP-98).
//
// Per producer: its epoch and the sequence/offset ranges of its last five
// batches (a client keeps at most five requests in flight per partition).
// Transactions (KIP-98): a transactional batch of a producer without an open
// transaction opens one at its first offset; the producer's COMMIT/ABORT
// marker closes it. The first open transaction's first offset is the
// partition's first unstable offset; a completed transaction stays unstable
// until the high watermark passes its marker (Kafka's unreplicated txns), so
// the last stable offset = min(first unstable offset, high watermark).
// Markers are checked as Kafka's appendEndTxnMarker: an older producer epoch
// -> INVALID_PRODUCER_EPOCH, an older coordinator epoch ->
// TRANSACTION_COORDINATOR_FENCED; a non-transactional batch of a producer with
// an open transaction -> INVALID_TXN_STATE.
//
// Validation follows Kafka's ProducerAppendInfo for client appends:
//   * epoch below the known one          -> INVALID_PRODUCER_EPOCH
//   * new epoch of a known producer      -> first sequence must be 0
//   * same epoch                         -> first sequence = last + 1 (int32
//     wrap to 0); anything else is OUT_OF_ORDER_SEQUENCE_NUMBER
//   * unknown producer (no state: new, expired or all its data deleted)
//                                        -> any sequence is accepted
// A batch equal (epoch, first and last sequence) to one of the cached five is
// a duplicate: the caller answers with the cached offsets and appends nothing.
//
// Threading: none inside; the owning Log calls it under its append mutex, so
// validation and offset assignment are one atomic step. Failure: validation
// errors are Status values carrying the Kafka code; nothing throws.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "record/batch_header.h"
#include "util/status.h"

namespace spool::storage {

inline constexpr int kProducerBatchesRetained = 5;
inline constexpr int16_t kNoProducerEpoch = -1;
inline constexpr int32_t kNoSequence = -1;

// Last sequence of a batch: base + last_offset_delta, wrapping past INT32_MAX
// to 0 as producers do.
int32_t last_sequence_of(int32_t base_sequence, int32_t last_offset_delta);
// True when `next` directly follows `last` (with the wrap).
bool in_sequence(int32_t last, int32_t next);

struct ProducerBatchMeta {
  int32_t first_seq = kNoSequence;
  int32_t last_seq = kNoSequence;
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t timestamp = -1;  // the batch's max timestamp (log append time when set)
};

struct ProducerEntry {
  int64_t producer_id = -1;
  int16_t epoch = kNoProducerEpoch;
  std::deque<ProducerBatchMeta> batches;  // oldest first, at most kProducerBatchesRetained
  int32_t coordinator_epoch = -1;         // epoch of the coordinator that wrote the last marker
  int64_t current_txn_first_offset = -1;  // first offset of the open transaction, -1 when none
  int64_t last_timestamp = -1;            // expiry clock

  int32_t last_seq() const { return batches.empty() ? kNoSequence : batches.back().last_seq; }
  int64_t last_data_offset() const { return batches.empty() ? -1 : batches.back().last_offset; }
  const ProducerBatchMeta* find_batch(int16_t epoch, int32_t first_seq, int32_t last_seq) const;
  // Records a batch; a new epoch forgets the batches of the old one.
  void add_batch(int16_t epoch, const ProducerBatchMeta& meta);
};

// The producer-related fields of one batch with its assigned offsets.
struct ProducerBatch {
  int64_t producer_id = -1;
  int16_t epoch = kNoProducerEpoch;
  int32_t base_sequence = kNoSequence;
  int32_t last_sequence = kNoSequence;
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t max_timestamp = -1;
  bool transactional = false;
  bool control = false;
  // Control batches only: the marker's type and coordinator epoch.
  bool commit = false;
  int32_t coordinator_epoch = -1;

  // `h` as stored (base_offset already assigned); max_ts overrides the
  // header's max timestamp (LogAppendTime).
  static ProducerBatch from_header(const record::BatchHeader& h, std::optional<int64_t> max_ts = {});
};

// A transaction ended by a marker at last_offset (Kafka's CompletedTxn).
struct CompletedTxn {
  int64_t producer_id = -1;
  int64_t first_offset = -1;
  int64_t last_offset = -1;  // the marker
  bool aborted = false;
};

class ProducerStateManager {
 public:
  // Producers touched by one append, validated but not yet visible.
  struct Staged {
    std::map<int64_t, ProducerEntry> updated;
  };

  // The cached batch `b` duplicates (against committed state only, as Kafka).
  std::optional<ProducerBatchMeta> find_duplicate(const ProducerBatch& b) const;
  // Validates `b` against the committed state plus what `staged` already
  // holds from earlier batches of the same append, and stages it.
  Status validate_and_stage(const ProducerBatch& b, Staged& staged) const;
  // Makes a successful append's producers visible; `end_offset` = new log end.
  void commit(Staged&& staged, int64_t end_offset);
  // Recovery and replica appends: applies a stored batch without checks.
  // A marker that closed an open transaction returns it.
  std::optional<CompletedTxn> replay(const ProducerBatch& b);

  // --- transactions ---
  // Checks a marker (control batch `b`, offsets assigned) before it is written.
  Status check_end_txn(const ProducerBatch& b) const;
  // Applies a written marker; returns the transaction it closed, if one was open.
  std::optional<CompletedTxn> apply_end_txn(const ProducerBatch& b);
  // The smallest first offset of an open or not-yet-replicated transaction;
  // nullopt when there is none.
  std::optional<int64_t> first_unstable_offset() const;
  // The last stable offset right after `txn` completed (the .txnindex field):
  // the first open transaction's first offset, else the marker + 1.
  int64_t last_stable_offset_after(const CompletedTxn& txn) const;
  // Completed transactions whose marker is below `hw` become stable.
  void on_high_watermark(int64_t hw);
  size_t ongoing_txn_count() const;

  // Drops producers none of whose batches remain at/after `log_start`
  // (retention, DeleteRecords). Returns how many were removed.
  int evict_unretained(int64_t log_start);
  // Drops producers idle for `expiration_ms` (producer.id.expiration.ms)
  // without an open transaction. Returns how many were removed.
  int remove_expired(int64_t now_ms, int64_t expiration_ms);

  void clear(int64_t end_offset);
  // Offset up to which batches have been applied (exclusive).
  int64_t map_end_offset() const { return map_end_offset_; }
  void set_map_end_offset(int64_t o) { map_end_offset_ = o; }
  size_t size() const { return producers_.size(); }
  const ProducerEntry* entry(int64_t producer_id) const;
  std::vector<ProducerEntry> entries() const;
  // Replaces the state with a snapshot's entries.
  void load(std::vector<ProducerEntry> entries, int64_t map_end_offset);

 private:
  std::map<int64_t, ProducerEntry> producers_;
  std::vector<CompletedTxn> unreplicated_;  // completed, marker at/above the last known high watermark
  int64_t map_end_offset_ = 0;
};

}  // namespace spool::storage
