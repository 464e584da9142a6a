// Sparse time index of one segment (Kafka's .timeindex): 12-byte big-endian
// entries of (max timestamp so far as int64, offset - base_offset as int32).
// Timestamps strictly increase; an entry is added alongside an offset-index
// entry when the max timestamp grew, and a final one when the segment stops
// being active. Threading as IndexFile: one writer, concurrent readers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "storage/index_file.h"

namespace spool::storage {

class TimeIndex {
 public:
  static constexpr size_t kEntrySize = 12;
  struct Entry {
    int64_t timestamp;
    int64_t offset;
  };

  TimeIndex(std::unique_ptr<IndexFile> file, int64_t base_offset)
      : file_(std::move(file)), base_offset_(base_offset) {}

  // Largest entry whose timestamp <= ts; {-1, base_offset} when none.
  Entry lookup(int64_t ts) const;
  std::optional<Entry> last() const;
  Entry at(size_t i) const;
  size_t entries() const { return file_->entries(); }
  // Room for one more entry is kept for the final entry written at roll.
  bool full() const { return file_->entries() + 1 >= file_->max_entries(); }

  // Appends only if ts is above the last entry's timestamp.
  Status maybe_append(int64_t ts, int64_t offset);
  // Drops entries whose offset >= `offset`.
  void truncate_to(int64_t offset);
  void clear() { file_->truncate_entries(0); }
  bool sane(int64_t next_offset) const;

  IndexFile& file() { return *file_; }

 private:
  std::unique_ptr<IndexFile> file_;
  int64_t base_offset_;
};

}  // namespace spool::storage
