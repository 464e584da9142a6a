// Log compaction (the cleaner): value types shared by Log::clean (cleaner.cc)
// and the LogManager's cleaner thread.
//
// What a pass does, Kafka's way: the dirty section starts at the log's
// cleaner checkpoint (first dirty offset) and ends before the first segment
// that is active or younger than min.compaction.lag.ms. A KeyOffsetMap of
// key -> latest offset is built over it (stopping early when the map is
// full), then every inactive segment below that end is rewritten keeping
// only records whose offset is the latest for their key; offsets, batch base
// offsets, producer fields and codecs are preserved. Tombstones get a delete
// horizon (now + delete.retention.ms, stored in the batch header as KIP-534
// does) the first time they are cleaned and are dropped by the first pass
// after it. Output goes to `<base>.log.cleaned`, becomes `.swap` (the commit
// point: recovery completes it) and is swapped in under the log's lock.
//
// Threading: one pass per log at a time (Log serializes them); appends and
// fetches proceed during a pass, which holds the append lock only for the
// final renames. Failure: a Status; an aborted pass leaves the log as it was.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "storage/offset_map.h"

namespace spool::storage {

inline constexpr const char* kCleanerOffsetCheckpoint = "cleaner-offset-checkpoint";

// Where a compacted log stands, for scheduling (cheap: segment metadata only).
struct CleanableInfo {
  bool compacted = false;
  int64_t first_dirty = 0;        // cleaner checkpoint, clamped to the log start
  int64_t first_uncleanable = 0;  // base of the active segment or the first one inside min lag
  int64_t clean_bytes = 0;
  int64_t dirty_bytes = 0;
  double dirty_ratio = 0;         // dirty / (clean + dirty)
  bool max_lag_exceeded = false;  // dirty data older than max.compaction.lag.ms
  bool delete_horizon_passed = false;  // tombstones cleaned earlier may now go
  bool due = false;               // what the cleaner thread acts on
};

struct CleanStats {
  bool cleaned = false;           // something was rewritten
  int64_t first_dirty = 0;
  int64_t end_offset = 0;         // new cleaner checkpoint
  int segments_in = 0;
  int segments_out = 0;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t records_read = 0;
  int64_t records_kept = 0;
  int64_t tombstones_removed = 0;
  size_t map_entries = 0;
  double elapsed_ms = 0;
};

struct CleanOptions {
  // Reused across passes by the cleaner thread; when null a map with
  // `dedupe_buffer_bytes` is made for the pass.
  KeyOffsetMap* map = nullptr;
  size_t dedupe_buffer_bytes = 16 << 20;
  // Set by another thread to stop a pass early (shutdown): the pass returns
  // an error and leaves the log as it was.
  const std::atomic<bool>* abort = nullptr;
  // Sync points (util/sync_point.h) a pass reaches, per group:
  //   "Cleaner::CleanedCopyWritten"  the cleaned copy is written and synced,
  //                                  not yet swapped in;
  //   "Cleaner::AfterSwapRename"     its `.swap` rename is durable (the
  //                                  commit point: recovery finishes the swap);
  //   "Cleaner::AfterOldDeleted"     the segments it replaces are deleted.
};

}  // namespace spool::storage
