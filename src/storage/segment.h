// One log segment: `<base offset, 20 digits>.log` holding record batches back
// to back exactly as received, plus its .index, .timeindex and .txnindex
// (aborted transactions whose ABORT marker is in this segment).
// Threading: a single writer (the owning Log serializes append/truncate/roll)
// and concurrent readers. Readers only look at bytes below size(), which the
// writer publishes (release) after the bytes and index entries are written.
// Files stay readable through a shared_ptr even after remove_files() unlinks
// them, so a fetch racing retention still finishes. Errors are Status values.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "record/batch_header.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "storage/txn_index.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::storage {

std::string segment_file_name(int64_t base_offset, const char* suffix);  // "000..0123.log"
// Parses "<20 digits><suffix>" (e.g. ".log"); nullopt otherwise.
std::optional<int64_t> parse_segment_file_name(const std::string& name, const std::string& suffix);

struct BatchInfo {         // one batch of an append, as written
  int64_t last_offset;
  int64_t max_timestamp;
  size_t size;
};

class Segment {
 public:
  ~Segment();
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  // Opens or creates the three files. `active` preallocates the indexes.
  // `suffix` is appended to every file name (the cleaner writes its output
  // as `<base>.log.cleaned` etc.; see change_suffix).
  static Result<std::shared_ptr<Segment>> open(const std::string& dir, int64_t base_offset,
                                               int32_t index_bytes, bool active,
                                               const std::string& suffix = "");

  int64_t base_offset() const { return base_offset_; }
  int64_t size() const { return size_.load(std::memory_order_acquire); }
  int64_t next_offset() const { return next_offset_.load(std::memory_order_acquire); }
  bool empty() const { return size() == 0; }
  int64_t max_timestamp() const { return max_ts_.load(std::memory_order_acquire); }
  int64_t offset_of_max_timestamp() const { return offset_of_max_ts_.load(std::memory_order_acquire); }
  // Retention clock: the largest record timestamp, else the file's mtime.
  int64_t largest_timestamp() const;
  int64_t first_append_ms() const { return first_append_ms_; }
  bool index_full() const { return offset_index_->full() || time_index_->full(); }
  bool indexes_existed() const { return indexes_existed_; }
  const std::string& log_path() const { return log_path_; }

  // --- writer side ---
  Status append(ByteSpan batches, const std::vector<BatchInfo>& infos, int32_t index_interval,
                int64_t now_ms);
  // Rebuilds the indexes by scanning and validating every batch (CRC
  // included); truncates the file at the first torn/corrupt batch. Returns
  // bytes dropped. `on_batch` sees every valid batch (leader epoch cache).
  Result<int64_t> recover(int32_t index_interval,
                          const std::function<void(const record::BatchHeader&)>& on_batch);
  // Loads state for a segment that needs no scan: checks the indexes, reads
  // the tail after the last index entry. Returns false (not an error) when
  // something does not add up and recover() is needed instead.
  Result<bool> load(int64_t next_segment_base);
  // Drops every batch whose last offset >= offset (truncation happens at a
  // batch boundary). Returns bytes dropped.
  Result<int64_t> truncate_to(int64_t offset);
  // Stops being the active segment: final time index entry, trim indexes.
  Status seal();
  Status make_active();  // re-preallocates indexes (after truncating later segments)
  Status flush_data();
  Status flush_indexes();
  Status remove_files();
  // Renames the three files from the current suffix to `suffix` ("" = the
  // live names). Not atomic across files: callers order renames so that
  // recovery (Log::clean_stray_files) can finish or undo a partial change.
  Status change_suffix(const std::string& suffix);
  int fd() const { return fd_; }  // for sequential scans (BatchScanner)
  // Aborted transactions whose marker is here; the Log appends (under its
  // append lock), fetches read. recover()/truncate_to() drop entries past the data.
  TxnIndex& txn_index() const { return *txn_index_; }

  // --- reader side ---
  // A byte range of whole batches, found by reading batch headers only.
  struct Range {
    int64_t position = 0;
    size_t bytes = 0;
    int64_t next_offset = -1;  // after the last batch in the range (-1: empty)
    bool stopped = false;      // a batch was held back (max_bytes / max_offset): do not go on
  };
  // Whole batches from the one containing `offset` (or the first at/after
  // it): each must fit max_bytes (but with min_one the first is taken whole
  // regardless) and end below max_offset. Reads only headers, never records.
  Result<Range> locate(int64_t offset, size_t max_bytes, int64_t max_offset, bool min_one) const;
  // First batch with max timestamp >= ts: (offset of the first record with
  // timestamp >= ts, that timestamp).
  Result<std::optional<std::pair<int64_t, int64_t>>> find_timestamp(int64_t ts) const;
  // Position of the first batch whose last offset >= offset, or nullopt.
  Result<std::optional<int64_t>> position_of(int64_t offset) const;

 private:
  Segment() = default;
  void index_batch(int64_t position, const BatchInfo& b, int32_t index_interval);
  void reset_state();

  std::string dir_;
  std::string log_path_;
  std::string suffix_;
  int64_t base_offset_ = 0;
  int fd_ = -1;
  std::unique_ptr<OffsetIndex> offset_index_;
  std::unique_ptr<TimeIndex> time_index_;
  std::unique_ptr<TxnIndex> txn_index_;
  bool indexes_existed_ = false;
  std::atomic<int64_t> size_{0};
  std::atomic<int64_t> next_offset_{0};
  std::atomic<int64_t> max_ts_{-1};
  std::atomic<int64_t> offset_of_max_ts_{-1};
  int64_t bytes_since_index_ = 0;
  int64_t first_append_ms_ = -1;
};

}  // namespace spool::storage
