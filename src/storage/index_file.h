// A memory-mapped file of fixed-size index entries (base of the offset and
// time indexes). The mapping is made once, as large as max(file size,
// max_bytes), and never moved: growing for a re-activated segment or
// trimming on roll only changes the file length, so concurrent readers
// holding the object never see a remap. Threading: one writer (serialized by
// the owning Log) and any number of readers; the entry count is published
// with release/acquire after the entry bytes are written.
// Full disks: the preallocated file is sparse, and a store into a page with
// no block behind it raises SIGBUS when the file system is full. append()
// therefore allocates blocks (fallocate, 64 KiB at a time) before its store
// reaches them; without space it fails (ENOSPC, KAFKA_STORAGE_ERROR) and the
// index simply stops growing, as any index failure does.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "util/status.h"

namespace spool::storage {

class IndexFile {
 public:
  ~IndexFile();
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;

  // Opens (creating if missing) `path`. Entries present = file size / entry
  // size (a stray partial tail is ignored). `preallocate` grows the file to
  // max_bytes so appends need no syscalls (Kafka preallocates the same way).
  static Result<std::unique_ptr<IndexFile>> open(const std::string& path, size_t entry_size,
                                                 size_t max_bytes, bool preallocate);

  size_t entries() const { return entries_.load(std::memory_order_acquire); }
  size_t max_entries() const { return max_entries_; }
  bool full() const { return entries() >= max_entries_; }
  size_t entry_size() const { return entry_size_; }
  const uint8_t* entry(size_t i) const { return base_ + i * entry_size_; }
  const std::string& path() const { return path_; }
  bool file_existed() const { return existed_; }

  // Writer side. append() fails when full, or when no block can be
  // allocated for the entry.
  Status append(const uint8_t* bytes);
  void truncate_entries(size_t n);
  // File length = live entries (on roll/close), or back to max (re-activated).
  Status trim();
  Status preallocate();
  Status sync();
  Status remove();  // unlinks; the mapping stays readable until destruction
  // Renames the file (the cleaner's .cleaned -> .swap -> final steps); the
  // mapping is unaffected.
  Status rename_to(const std::string& path);

 private:
  IndexFile() = default;
  // Zeroes [offset, offset + len) of the file by deallocating it; false if
  // the file system cannot (the caller then writes zeros).
  bool punch_hole(size_t offset, size_t len);
  // Allocates blocks under [.., end) of the file (fallocate mode 0: data
  // unchanged) so stores below `end` cannot fault on a full disk.
  Status reserve(size_t end);
  std::string path_;
  uint8_t* base_ = nullptr;
  size_t map_bytes_ = 0;
  size_t entry_size_ = 0;
  size_t max_entries_ = 0;
  bool existed_ = false;
  std::atomic<size_t> entries_{0};
  size_t file_bytes_ = 0;
  size_t allocated_bytes_ = 0;  // blocks known allocated below this (0 at open: unknown)
  bool reserve_unsupported_ = false;  // the file system has no fallocate
};

// Big-endian helpers for entry encoding.
inline int32_t load_be32(const uint8_t* p) {
  return static_cast<int32_t>((uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3]);
}
inline int64_t load_be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return static_cast<int64_t>(v);
}
inline void store_be32(uint8_t* p, int32_t v) {
  auto u = static_cast<uint32_t>(v);
  for (int i = 3; i >= 0; --i) { p[i] = static_cast<uint8_t>(u); u >>= 8; }
}
inline void store_be64(uint8_t* p, int64_t v) {
  auto u = static_cast<uint64_t>(v);
  for (int i = 7; i >= 0; --i) { p[i] = static_cast<uint8_t>(u); u >>= 8; }
}

}  // namespace spool::storage
