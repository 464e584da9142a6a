// TxnIndex: a segment's `.txnindex`, the aborted transactions whose ABORT
// marker lies in that segment (Kafka's TransactionIndex). A read_committed
// fetch collects the entries overlapping the range it returns, so the client
// can drop the aborted producers' batches.
//
// On-disk format (Kafka's, byte for byte): entries of 34 bytes back to back,
// big endian: int16 version (0), int64 producer id, int64 first offset,
// int64 last offset (the marker's offset), int64 last stable offset (the LSO
// right after the abort completed). The file exists only once an entry does.
//
// The entries are also kept in memory (aborts are rare; a segment holds few),
// so a fetch never reads the file. Opening repairs what a power cut can leave
// in the unsynced tail: implausible entries (zero-filled or torn: bad
// version, first offset not below the marker, a last stable offset beyond
// the marker + 1), a partial entry and all but one entry per marker offset
// (the one a tear zeroed least) are dropped, the rest is sorted by marker
// offset, and the file is rewritten and synced (logged);
// recovery re-adds what is missing from the producer-state replay.
// Threading: one writer (the owning Log, under its append lock) and any
// number of readers; an internal mutex guards the entry list.
// Failure: I/O errors are Status values with KAFKA_STORAGE_ERROR.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "util/status.h"

namespace spool::storage {

struct AbortedTxn {
  int64_t producer_id = -1;
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t last_stable_offset = -1;
  bool operator==(const AbortedTxn&) const = default;
};

class TxnIndex {
 public:
  static constexpr size_t kEntrySize = 34;
  static constexpr int16_t kVersion = 0;

  // Loads `path` if present (missing = empty index).
  static Result<std::unique_ptr<TxnIndex>> open(std::string path);
  ~TxnIndex();

  // Appends unless an entry for the same producer and marker offset exists
  // (recovery may replay an abort already indexed). Writes through to the
  // file (no fsync; flush() does that). Entries stay in marker order: an
  // entry older than the last one (recovery re-indexing an abort a power cut
  // removed from the middle of the file) is inserted in place and the file
  // rewritten.
  Status append(const AbortedTxn& txn);
  // Keeps entries whose marker is below `offset` (log truncation).
  Status truncate_to(int64_t offset);
  // Adds to `out` the entries with last_offset >= fetch_offset and
  // first_offset < upper_bound. True when the search is complete: an entry's
  // last stable offset reaches upper_bound, so no later segment can hold an
  // abort overlapping the range (Kafka's TxnIndexSearchResult.isComplete).
  bool collect(int64_t fetch_offset, int64_t upper_bound, std::vector<AbortedTxn>& out) const;
  std::vector<AbortedTxn> entries() const;
  bool empty() const;

  Status flush();
  Status remove();
  Status rename_to(std::string path);
  const std::string& path() const { return path_; }

 private:
  explicit TxnIndex(std::string path) : path_(std::move(path)) {}
  Status ensure_open_locked();
  Status rewrite_locked();

  mutable std::mutex mu_;
  std::string path_;
  int fd_ = -1;
  std::vector<AbortedTxn> entries_;
};

// Encoding of one entry (tests and tools).
void encode_aborted_txn(const AbortedTxn& t, uint8_t* out);

}  // namespace spool::storage
