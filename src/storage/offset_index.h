// Sparse offset index of one segment (Kafka's .index): 8-byte big-endian
// entries of (offset - base_offset as int32, file position as int32), one
// written whenever index.interval.bytes of batches were appended since the
// last entry, pointing at the start of a batch and keyed by that batch's
// last offset. Threading as IndexFile: one writer, concurrent readers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "storage/index_file.h"

namespace spool::storage {

class OffsetIndex {
 public:
  static constexpr size_t kEntrySize = 8;
  struct Entry {
    int64_t offset;
    int64_t position;
  };

  OffsetIndex(std::unique_ptr<IndexFile> file, int64_t base_offset)
      : file_(std::move(file)), base_offset_(base_offset) {}

  // Largest entry whose offset <= target; {base_offset, 0} when none.
  Entry lookup(int64_t target) const;
  // Same, ignoring entries at or past `max_position` (a reader racing the
  // writer can see an entry before the segment size that covers it).
  Entry lookup(int64_t target, int64_t max_position) const;
  std::optional<Entry> last() const;
  Entry at(size_t i) const;
  size_t entries() const { return file_->entries(); }
  bool full() const { return file_->full(); }

  // Offsets and positions must grow strictly; callers guarantee it.
  Status append(int64_t offset, int64_t position);
  // Drops entries with offset >= `offset`.
  void truncate_to(int64_t offset);
  void clear() { file_->truncate_entries(0); }
  // Structural check after load: increasing entries, positions inside the log.
  bool sane(int64_t log_size) const;

  IndexFile& file() { return *file_; }

 private:
  std::unique_ptr<IndexFile> file_;
  int64_t base_offset_;
};

}  // namespace spool::storage
