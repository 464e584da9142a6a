#include "storage/txn_index.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
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

// An entry that can have been written by index_completed_txn: version 0, a
// producer id, a first offset strictly below its marker (an aborted
// transaction with nothing in this partition has no entry), and a last
// stable offset at most one past the marker (it is the LSO once the abort
// completed, never beyond the log end then).
bool plausible(int16_t version, const AbortedTxn& t) {
  return version == TxnIndex::kVersion && t.producer_id >= 0 && t.first_offset >= 0 &&
         t.first_offset < t.last_offset && t.last_stable_offset >= 0 && t.last_stable_offset <= t.last_offset + 1;
}

// The entries of `buf` as they lie in the file (for the repair decision).
std::vector<AbortedTxn> decoded_prefix(const Bytes& buf) {
  std::vector<AbortedTxn> out;
  for (size_t pos = 0; pos + TxnIndex::kEntrySize <= buf.size(); pos += TxnIndex::kEntrySize) {
    const uint8_t* p = buf.data() + pos;
    out.push_back({get_i64(p + 2), get_i64(p + 10), get_i64(p + 18), get_i64(p + 26)});
  }
  return out;
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
  // A power cut can leave the unsynced tail torn, zero-filled or holding
  // entries twice; a bad entry (a garbage last stable offset above all)
  // would hide later aborts from read_committed fetches. So every entry is
  // checked on its own, duplicates are dropped and the rest sorted by marker
  // offset; what went is logged and the file rewritten (and synced).
  size_t bad = 0, duplicate = 0;
  for (size_t pos = 0; pos + kEntrySize <= *n; pos += kEntrySize) {
    const uint8_t* p = buf.data() + pos;
    int16_t version = static_cast<int16_t>((p[0] << 8) | p[1]);
    AbortedTxn t{get_i64(p + 2), get_i64(p + 10), get_i64(p + 18), get_i64(p + 26)};
    if (!plausible(version, t)) {
      ++bad;
      continue;
    }
    idx->entries_.push_back(t);
  }
  size_t partial = *n % kEntrySize;
  // One marker offset holds one producer's marker, so one entry per last
  // offset: of two, one is torn, and a tear zeroes what it loses, so the one
  // with the higher first offset (then producer id) is kept.
  std::sort(idx->entries_.begin(), idx->entries_.end(), [](const AbortedTxn& a, const AbortedTxn& b) {
    if (a.last_offset != b.last_offset) return a.last_offset < b.last_offset;
    if (a.first_offset != b.first_offset) return a.first_offset > b.first_offset;
    return a.producer_id > b.producer_id;
  });
  const size_t before = idx->entries_.size();
  idx->entries_.erase(std::unique(idx->entries_.begin(), idx->entries_.end(),
                                  [](const AbortedTxn& a, const AbortedTxn& b) { return a.last_offset == b.last_offset; }),
                      idx->entries_.end());
  duplicate = before - idx->entries_.size();
  const std::vector<AbortedTxn> as_stored = decoded_prefix(buf);
  const bool reordered = !std::equal(idx->entries_.begin(), idx->entries_.end(), as_stored.begin(), as_stored.end());
  if (bad > 0 || duplicate > 0 || partial > 0 || reordered) {
    spdlog::warn("{}: transaction index repaired: {} implausible and {} duplicate or torn entr(ies) dropped, {} "
                 "byte(s) of a partial entry cut{}; {} entries kept",
                 idx->path_, bad, duplicate, partial, reordered ? ", entries sorted" : "", idx->entries_.size());
    std::lock_guard lk(idx->mu_);
    Status s = idx->rewrite_locked();
    if (s) s = data_sync(fd);
    if (!s) return s;
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
  if (!entries_.empty() && txn.last_offset < entries_.back().last_offset) {
    // Recovery re-indexing an abort whose entry a power cut took from the
    // middle of the file while later ones survived: the entries must stay in
    // marker order, or collect() stops at a later entry's LSO and misses
    // this abort (an aborted read, found by the chaos hour of session 13).
    auto at = std::upper_bound(entries_.begin(), entries_.end(), txn.last_offset,
                               [](int64_t last, const AbortedTxn& e) { return last < e.last_offset; });
    entries_.insert(at, txn);
    return rewrite_locked();
  }
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
