#include "storage/index_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "storage/file_util.h"
#include "storage/fs.h"

namespace spool::storage {

namespace {
constexpr size_t kPage = 4096;
}  // namespace

IndexFile::~IndexFile() {
  if (base_ != nullptr) fs().munmap(base_, map_bytes_);
}

Result<std::unique_ptr<IndexFile>> IndexFile::open(const std::string& path, size_t entry_size,
                                                   size_t max_bytes, bool preallocate) {
  std::unique_ptr<IndexFile> f(new IndexFile());
  f->path_ = path;
  f->entry_size_ = entry_size;
  f->existed_ = path_exists(path);
  // The descriptor is only needed to map: closing it right away keeps one
  // open file per segment (the .log) instead of three.
  int fd = fs().open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return errno_status("open index " + path);
  auto size = file_size(fd);
  if (!size) {
    fs().close(fd);
    return size.status();
  }
  size_t existing = static_cast<size_t>(*size) / entry_size;
  max_bytes = std::max(max_bytes - max_bytes % entry_size, entry_size);
  f->map_bytes_ = std::max(existing * entry_size, max_bytes);
  f->max_entries_ = f->map_bytes_ / entry_size;
  void* p = fs().mmap(f->map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
  Status ms = p == MAP_FAILED ? errno_status("mmap index " + path) : Status::ok();
  fs().close(fd);
  if (!ms) return ms;
  f->base_ = static_cast<uint8_t*>(p);
  // Entries are touched one page at a time (appends, binary searches): no
  // readahead. With it, the first touch of a page in the sparse,
  // preallocated file read ahead (zero-filled) a large window inside the
  // page fault - a third of the broker's CPU in the latency bench.
  (void)::madvise(p, f->map_bytes_, MADV_RANDOM);
  f->entries_.store(existing, std::memory_order_release);
  f->file_bytes_ = static_cast<size_t>(*size);
  if (preallocate) {
    Status s = f->preallocate();
    if (!s) return s;
  } else if (static_cast<size_t>(*size) != existing * entry_size) {
    Status s = f->trim();  // drop a partial trailing entry
    if (!s) return s;
  }
  return f;
}

Status IndexFile::append(const uint8_t* bytes) {
  size_t n = entries_.load(std::memory_order_relaxed);
  if (n >= max_entries_) return Status::error("index full: " + path_, kStorageError);
  if ((n + 1) * entry_size_ > file_bytes_) {
    // Not preallocated (should not happen for an active segment): grow first
    // so the store below never lands past EOF (SIGBUS).
    Status s = preallocate();
    if (!s) return s;
  }
  if ((n + 1) * entry_size_ > allocated_bytes_) {
    Status s = reserve((n + 1) * entry_size_);
    if (!s) return s;
  }
  std::memcpy(base_ + n * entry_size_, bytes, entry_size_);
  entries_.store(n + 1, std::memory_order_release);
  return Status::ok();
}

void IndexFile::truncate_entries(size_t n) {
  size_t cur = entries_.load(std::memory_order_relaxed);
  if (n >= cur) return;
  entries_.store(n, std::memory_order_release);
  size_t from = n * entry_size_;
  size_t end = std::min(cur * entry_size_, file_bytes_);
  if (end <= from) return;
  // Dropped entries must read as zero (a crash must not bring them back).
  // Writing the zeros would touch, and dirty, every page of the range: after
  // a crash the "entries" of a preallocated index are its whole 10 MB, so a
  // recovery that clears it made 20 MB per partition resident and written
  // back. A punched hole reads as zero and releases the pages instead; only
  // a partial first page is written. The size stays, so the mapping stays
  // valid for racing readers.
  // Small ranges (a truncation by a few entries) are cheaper to write.
  constexpr size_t kPunchAtLeast = 64 * 1024;
  if (end - from < kPunchAtLeast || !punch_hole(from, end - from)) {
    std::memset(base_ + from, 0, end - from);
    return;
  }
  allocated_bytes_ = std::min(allocated_bytes_, from - from % kPage);
}

Status IndexFile::reserve(size_t end) {
  if (reserve_unsupported_) return Status::ok();
  constexpr size_t kChunk = 64 * 1024;
  const size_t from = std::min(allocated_bytes_, end - 1) / kPage * kPage;
  const size_t to = std::min(file_bytes_, (end + kChunk - 1) / kChunk * kChunk);
  int fd = fs().open(path_.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) return errno_status("open index " + path_);
  int rc = fs().fallocate(fd, 0, static_cast<off_t>(from), static_cast<off_t>(to - from));
  int err = errno;
  fs().close(fd);
  if (rc != 0 && (err == EOPNOTSUPP || err == ENOSYS)) {
    reserve_unsupported_ = true;  // nothing to do but store and hope, as before
    return Status::ok();
  }
  errno = err;
  if (rc != 0) return errno_status("allocate index blocks " + path_);
  allocated_bytes_ = to;
  return Status::ok();
}

bool IndexFile::punch_hole(size_t offset, size_t len) {
  int fd = fs().open(path_.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) return false;  // renamed or removed meanwhile: zero in memory
  int rc = fs().fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                       static_cast<off_t>(len));
  fs().close(fd);
  return rc == 0;
}

Status IndexFile::trim() {
  size_t bytes = entries() * entry_size_;
  if (fs().truncate(path_.c_str(), static_cast<off_t>(bytes)) != 0) return errno_status("truncate index " + path_);
  file_bytes_ = bytes;
  return Status::ok();
}

Status IndexFile::preallocate() {
  if (fs().truncate(path_.c_str(), static_cast<off_t>(map_bytes_)) != 0) return errno_status("grow index " + path_);
  file_bytes_ = map_bytes_;
  return Status::ok();
}

Status IndexFile::sync() {
  size_t bytes = entries() * entry_size_;
  if (bytes > 0 && fs().msync(base_, bytes, MS_SYNC) != 0) return errno_status("msync " + path_);
  // The length changed on trim: fsync the inode too.
  int fd = fs().open(path_.c_str(), O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0 && errno == ENOENT) return Status::ok();  // deleted meanwhile (retention): nothing to keep
  if (fd < 0) return errno_status("open index " + path_);
  Status s = full_sync(fd);
  fs().close(fd);
  return s;
}

Status IndexFile::remove() {
  if (fs().unlink(path_.c_str()) != 0 && errno != ENOENT) return errno_status("unlink " + path_);
  return Status::ok();
}

Status IndexFile::rename_to(const std::string& path) {
  if (fs().rename(path_.c_str(), path.c_str()) != 0) return errno_status("rename " + path_ + " to " + path);
  path_ = path;
  return Status::ok();
}

}  // namespace spool::storage
