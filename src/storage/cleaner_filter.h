// Per-batch work of a cleaner pass (see storage/cleaner.h): feeding a batch's
// keys into the offset map, and rewriting a batch to what survives cleaning.
// Pure functions over one batch's bytes; thread-compatible. Malformed
// batches give a Status (the pass is aborted, the log left as it was).
#pragma once

#include <cstdint>

#include "record/batch_header.h"
#include "storage/cleaner.h"
#include "storage/offset_map.h"
#include "storage/segment.h"
#include "storage/txn_index.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::storage {

// Whether the cleaner may look inside the batch at all. Control and
// transactional batches are never compacted record by record (their keys stay
// out of the map, so they never shadow non-transactional records): committed
// transactional data and every marker are kept whole, which keeps
// read_committed answers exact. Aborted transactional data (per the
// .txnindex entries in FilterContext::aborted) is dropped as a whole batch;
// the ABORT marker and its index entry stay, so a consumer still skips
// whatever of that transaction another copy of the log might hold.
// (Kafka may also remove markers after delete.retention.ms once no data of
// their transaction is left; keeping them is always safe.)
bool cleaner_skips_batch(const record::BatchHeader& h);

// Puts every keyed record of the batch into `map` (the caller checked there
// is room for records_count more keys).
Status add_batch_keys(const record::BatchHeader& h, ByteSpan batch, KeyOffsetMap& map, Bytes& scratch);

struct FilterContext {
  const KeyOffsetMap* map = nullptr;
  int64_t now_ms = 0;
  int64_t delete_retention_ms = 0;
  Bytes scratch;                     // decompression buffer, reused
  int64_t min_delete_horizon = INT64_MAX;  // of batches kept with tombstones
  // Aborted transactions of the log (from its .txnindex files); null = none.
  const std::vector<AbortedTxn>* aborted = nullptr;
};

// True when the transactional data batch `h` belongs to an aborted transaction.
bool batch_is_aborted(const record::BatchHeader& h, const std::vector<AbortedTxn>& aborted);

// Appends to `out` what is left of the batch and returns its BatchInfo, or
// nullopt when nothing is left. A batch that loses nothing is copied as is.
Result<std::optional<BatchInfo>> filter_batch(const record::BatchHeader& h, ByteSpan batch, FilterContext& ctx,
                                              Bytes& out, CleanStats& stats);

}  // namespace spool::storage
