#include "storage/txn_index.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>

#include "storage/file_util.h"
#include "storage/fs.h"

namespace spool::storage {
namespace {

void put_i64(uint8_t* p, int64_t v) {
  auto u = static_cast<uint64_t>(v);
  for (int i = 7; i >= 0; --i) {
    p[i] = static_cast<uint8_t>(u & 0xff);
    u >>= 8;
  }
}

int64_t get_i64(const uint8_t* p) {
  uint64_t u = 0;
  for (int i = 0; i < 8; ++i) u = (u << 8) | p[i];
  return static_cast<int64_t>(u);
}

}  // namespace

void encode_aborted_txn(const AbortedTxn& t, uint8_t* out) {
  out[0] = static_cast<uint8_t>(static_cast<uint16_t>(TxnIndex::kVersion) >> 8);
  out[1] = static_cast<uint8_t>(TxnIndex::kVersion & 0xff);
  put_i64(out + 2, t.producer_id);
  put_i64(out + 10, t.first_offset);
  put_i64(out + 18, t.last_offset);
  put_i64(out + 26, t.last_stable_offset);
}

Result<std::unique_ptr<TxnIndex>> TxnIndex::open(std::string path) {
  std::unique_ptr<TxnIndex> idx(new TxnIndex(std::move(path)));
  int fd = fs().open(idx->path_.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    if (errno == ENOENT) return idx;
    return errno_status("open " + idx->path_);
  }
  idx->fd_ = fd;
  auto size = file_size(fd);
  if (!size) return size.status();
  Bytes buf(static_cast<size_t>(*size));
  auto n = pread_full(fd, buf.data(), buf.size(), 0);
  if (!n) return n.status();
  size_t valid = 0;
  for (size_t pos = 0; pos + kEntrySize <= *n; pos += kEntrySize) {
    const uint8_t* p = buf.data() + pos;
    int16_t version = static_cast<int16_t>((p[0] << 8) | p[1]);
    AbortedTxn t{get_i64(p + 2), get_i64(p + 10), get_i64(p + 18), get_i64(p + 26)};
    if (version != kVersion || t.producer_id < 0 || t.first_offset < 0 || t.last_offset < t.first_offset) break;
    idx->entries_.push_back(t);
    valid = pos + kEntrySize;
  }
  if (valid != *n) {
    spdlog::warn("{}: dropping {} unparsable byte(s) of the transaction index", idx->path_, *n - valid);
    if (fs().ftruncate(fd, static_cast<off_t>(valid)) != 0) return errno_status("truncate " + idx->path_);
  }
  return idx;
}

TxnIndex::~TxnIndex() {
  if (fd_ >= 0) fs().close(fd_);
}

Status TxnIndex::ensure_open_locked() {
  if (fd_ >= 0) return Status::ok();
  fd_ = fs().open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return errno_status("open " + path_);
  return Status::ok();
}

Status TxnIndex::append(const AbortedTxn& txn) {
  std::lock_guard lk(mu_);
  for (const auto& e : entries_)
    if (e.producer_id == txn.producer_id && e.last_offset == txn.last_offset) return Status::ok();
  Status s = ensure_open_locked();
  if (!s) return s;
  uint8_t buf[kEntrySize];
  encode_aborted_txn(txn, buf);
  s = pwrite_all(fd_, buf, kEntrySize, static_cast<int64_t>(entries_.size() * kEntrySize));
  if (!s) return s;
  entries_.push_back(txn);
  return Status::ok();
}

Status TxnIndex::rewrite_locked() {
  if (fd_ < 0) return Status::ok();
  Bytes buf(entries_.size() * kEntrySize);
  for (size_t i = 0; i < entries_.size(); ++i) encode_aborted_txn(entries_[i], buf.data() + i * kEntrySize);
  if (!buf.empty()) {
    Status s = pwrite_all(fd_, buf.data(), buf.size(), 0);
    if (!s) return s;
  }
  if (fs().ftruncate(fd_, static_cast<off_t>(buf.size())) != 0) return errno_status("truncate " + path_);
  return Status::ok();
}

Status TxnIndex::truncate_to(int64_t offset) {
  std::lock_guard lk(mu_);
  size_t before = entries_.size();
  std::erase_if(entries_, [offset](const AbortedTxn& t) { return t.last_offset >= offset; });
  if (entries_.size() == before) return Status::ok();
  return rewrite_locked();
}

bool TxnIndex::collect(int64_t fetch_offset, int64_t upper_bound, std::vector<AbortedTxn>& out) const {
  std::lock_guard lk(mu_);
  for (const auto& t : entries_) {
    if (t.last_offset >= fetch_offset && t.first_offset < upper_bound) out.push_back(t);
    if (t.last_stable_offset >= upper_bound) return true;
  }
  return false;
}

std::vector<AbortedTxn> TxnIndex::entries() const {
  std::lock_guard lk(mu_);
  return entries_;
}

bool TxnIndex::empty() const {
  std::lock_guard lk(mu_);
  return entries_.empty();
}

Status TxnIndex::flush() {
  std::lock_guard lk(mu_);
  if (fd_ < 0) return Status::ok();
  return data_sync(fd_);
}

Status TxnIndex::remove() {
  std::lock_guard lk(mu_);
  if (fs().unlink(path_.c_str()) != 0 && errno != ENOENT) return errno_status("unlink " + path_);
  return Status::ok();
}

Status TxnIndex::rename_to(std::string path) {
  std::lock_guard lk(mu_);
  if (fd_ >= 0 || ::access(path_.c_str(), F_OK) == 0) {
    if (fs().rename(path_.c_str(), path.c_str()) != 0) return errno_status("rename " + path_);
  }
  path_ = std::move(path);
  return Status::ok();
}

}  // namespace spool::storage
