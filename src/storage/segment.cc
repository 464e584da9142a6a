#include "storage/segment.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "storage/batch_scanner.h"
#include "storage/file_util.h"
#include "storage/fs.h"
#include "record/record.h"

namespace spool::storage {

std::string segment_file_name(int64_t base_offset, const char* suffix) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%020lld", static_cast<long long>(base_offset));
  return std::string(buf) + suffix;
}

std::optional<int64_t> parse_segment_file_name(const std::string& name, const std::string& suffix) {
  if (name.size() != 20 + suffix.size() || name.compare(20, suffix.size(), suffix) != 0) return std::nullopt;
  int64_t v = 0;
  for (size_t i = 0; i < 20; ++i) {
    char c = name[i];
    if (c < '0' || c > '9') return std::nullopt;
    if (v > (INT64_MAX - (c - '0')) / 10) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

Segment::~Segment() {
  if (fd_ >= 0) fs().close(fd_);
}

Result<std::shared_ptr<Segment>> Segment::open(const std::string& dir, int64_t base_offset,
                                               int32_t index_bytes, bool active, const std::string& suffix) {
  std::shared_ptr<Segment> s(new Segment());
  s->dir_ = dir;
  s->base_offset_ = base_offset;
  s->suffix_ = suffix;
  s->log_path_ = dir + "/" + segment_file_name(base_offset, ".log") + suffix;
  s->fd_ = fs().open(s->log_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (s->fd_ < 0) return errno_status("open segment " + s->log_path_);
  auto size = file_size(s->fd_);
  if (!size) return size.status();
  if (*size > INT32_MAX) return Status::error(s->log_path_ + ": segment larger than 2 GiB", kStorageError);
  auto bytes = static_cast<size_t>(std::max(index_bytes, 64));
  auto oi = IndexFile::open(dir + "/" + segment_file_name(base_offset, ".index") + suffix, OffsetIndex::kEntrySize,
                            bytes, active);
  if (!oi) return oi.status();
  auto ti = IndexFile::open(dir + "/" + segment_file_name(base_offset, ".timeindex") + suffix, TimeIndex::kEntrySize,
                            bytes, active);
  if (!ti) return ti.status();
  auto xi = TxnIndex::open(dir + "/" + segment_file_name(base_offset, ".txnindex") + suffix);
  if (!xi) return xi.status();
  s->txn_index_ = std::move(*xi);
  s->indexes_existed_ = (*oi)->file_existed() && (*ti)->file_existed();
  s->offset_index_ = std::make_unique<OffsetIndex>(std::move(*oi), base_offset);
  s->time_index_ = std::make_unique<TimeIndex>(std::move(*ti), base_offset);
  s->size_.store(*size);
  s->next_offset_.store(base_offset);
  return s;
}

int64_t Segment::largest_timestamp() const {
  int64_t ts = max_timestamp();
  if (ts >= 0) return ts;
  struct stat st;
  if (::fstat(fd_, &st) != 0) return now_ms();
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

void Segment::index_batch(int64_t position, const BatchInfo& b, int32_t index_interval) {
  if (b.max_timestamp > max_ts_.load(std::memory_order_relaxed)) {
    max_ts_.store(b.max_timestamp, std::memory_order_release);
    offset_of_max_ts_.store(b.last_offset, std::memory_order_release);
  }
  if (bytes_since_index_ > index_interval && !offset_index_->full() && !time_index_->full()) {
    // Index failures only make the index sparser; never fail the append.
    (void)offset_index_->append(b.last_offset, position);
    (void)time_index_->maybe_append(max_ts_.load(), offset_of_max_ts_.load());
    bytes_since_index_ = 0;
  }
  bytes_since_index_ += static_cast<int64_t>(b.size);
}

Status Segment::append(ByteSpan batches, const std::vector<BatchInfo>& infos, int32_t index_interval,
                       int64_t now) {
  int64_t pos = size();
  Status s = pwrite_all(fd_, batches.data(), batches.size(), pos);
  if (!s) {
    // Drop whatever part landed so the file never holds a torn batch we counted.
    if (fs().ftruncate(fd_, pos) != 0) spdlog::error("{}: cannot undo failed write", log_path_);
    return s;
  }
  // Size first, then index entries: a reader must never find an entry that
  // points past the size it read (lookup also guards against that).
  int64_t p = pos;
  for (const auto& b : infos) p += static_cast<int64_t>(b.size);
  if (!infos.empty()) next_offset_.store(infos.back().last_offset + 1, std::memory_order_release);
  size_.store(p, std::memory_order_release);
  p = pos;
  for (const auto& b : infos) {
    index_batch(p, b, index_interval);
    p += static_cast<int64_t>(b.size);
  }
  if (first_append_ms_ < 0) first_append_ms_ = now;
  return Status::ok();
}

void Segment::reset_state() {
  offset_index_->clear();
  time_index_->clear();
  max_ts_.store(-1);
  offset_of_max_ts_.store(-1);
  bytes_since_index_ = 0;
  first_append_ms_ = -1;
}

Result<int64_t> Segment::recover(int32_t index_interval,
                                 const std::function<void(const record::BatchHeader&)>& on_batch) {
  auto fsize = file_size(fd_);
  if (!fsize) return fsize.status();
  reset_state();
  BatchScanner sc(fd_, 0, *fsize, 1 << 20);
  int64_t expected = base_offset_;
  int64_t good = 0;
  std::string why;
  for (;;) {
    auto step = sc.next(true);
    if (step == BatchScanner::Step::kEnd) break;
    if (step == BatchScanner::Step::kIoError) return sc.io_status();
    if (step == BatchScanner::Step::kTorn) {
      why = sc.torn_reason();
      break;
    }
    auto v = record::validate_batch(sc.bytes());
    if (!v) {
      why = v.status().message();
      break;
    }
    const auto& h = *v;
    if (h.base_offset < expected) {
      why = "offset " + std::to_string(h.base_offset) + " below expected " + std::to_string(expected);
      break;
    }
    if (h.last_offset() - base_offset_ > INT32_MAX) {
      why = "offset too far from segment base";
      break;
    }
    index_batch(sc.position(), {h.last_offset(), h.max_timestamp, h.total_size()}, index_interval);
    if (first_append_ms_ < 0) first_append_ms_ = h.max_timestamp >= 0 ? h.max_timestamp : now_ms();
    if (on_batch) on_batch(h);
    expected = h.last_offset() + 1;
    good = sc.next_position();
  }
  int64_t dropped = *fsize - good;
  if (dropped > 0) {
    spdlog::warn("{}: truncating {} bytes at position {} ({})", log_path_, dropped, good, why);
    if (fs().ftruncate(fd_, good) != 0) return errno_status("truncate " + log_path_);
  }
  size_.store(good, std::memory_order_release);
  next_offset_.store(expected, std::memory_order_release);
  // Aborts whose marker did not survive are not aborts (yet).
  Status ts = txn_index_->truncate_to(expected);
  if (!ts) return ts;
  return dropped;
}

Result<bool> Segment::load(int64_t next_segment_base) {
  auto fsize = file_size(fd_);
  if (!fsize) return fsize.status();
  int64_t size = *fsize;
  size_.store(size);
  if (!offset_index_->sane(size)) return false;
  int64_t start = 0, next = base_offset_;
  if (auto e = offset_index_->last()) {
    start = e->position;
    next = e->offset + 1;
  }
  int64_t tail_max_ts = -1, tail_max_off = -1;
  BatchScanner sc(fd_, start, size);
  bool first_batch = true;
  for (;;) {
    auto step = sc.next(false);
    if (step == BatchScanner::Step::kEnd) break;
    if (step == BatchScanner::Step::kIoError) return sc.io_status();
    if (step == BatchScanner::Step::kTorn) return false;
    const auto& h = sc.header();
    bool ok = (first_batch && start > 0) ? h.last_offset() == next - 1 : h.base_offset >= next;
    first_batch = false;
    if (!ok || h.last_offset() - base_offset_ > INT32_MAX) return false;
    if (h.max_timestamp > tail_max_ts) {
      tail_max_ts = h.max_timestamp;
      tail_max_off = h.last_offset();
    }
    next = h.last_offset() + 1;
  }
  if (next > next_segment_base) return false;
  if (!time_index_->sane(next)) return false;
  int64_t max_ts = -1, max_off = -1;
  if (auto t = time_index_->last()) {
    max_ts = t->timestamp;
    max_off = t->offset;
  }
  if (tail_max_ts > max_ts) {
    max_ts = tail_max_ts;
    max_off = tail_max_off;
  }
  max_ts_.store(max_ts);
  offset_of_max_ts_.store(max_off);
  next_offset_.store(next);
  bytes_since_index_ = size - start;
  first_append_ms_ = -1;
  if (size > 0) {
    BatchScanner first(fd_, 0, size, 4096);
    if (first.next(false) != BatchScanner::Step::kBatch || first.header().base_offset < base_offset_) return false;
    first_append_ms_ = first.header().max_timestamp >= 0 ? first.header().max_timestamp : now_ms();
  }
  return true;
}

Result<int64_t> Segment::truncate_to(int64_t offset) {
  auto pos = position_of(offset);
  if (!pos) return pos.status();
  if (!*pos) return int64_t{0};
  int64_t old = size();
  int64_t cut = **pos;
  if (fs().ftruncate(fd_, cut) != 0) return errno_status("truncate " + log_path_);
  offset_index_->truncate_to(offset);
  time_index_->truncate_to(offset);
  Status ts = txn_index_->truncate_to(offset);
  if (!ts) return ts;
  size_.store(cut, std::memory_order_release);
  // Recompute the tail state from what is left.
  int64_t start = 0, next = base_offset_;
  if (auto e = offset_index_->last()) {
    start = e->position;
    next = e->offset + 1;
  }
  int64_t max_ts = -1, max_off = -1;
  if (auto t = time_index_->last()) {
    max_ts = t->timestamp;
    max_off = t->offset;
  }
  BatchScanner sc(fd_, start, cut);
  while (sc.next(false) == BatchScanner::Step::kBatch) {
    const auto& h = sc.header();
    if (h.max_timestamp > max_ts) {
      max_ts = h.max_timestamp;
      max_off = h.last_offset();
    }
    next = h.last_offset() + 1;
  }
  max_ts_.store(max_ts);
  offset_of_max_ts_.store(max_off);
  next_offset_.store(next, std::memory_order_release);
  bytes_since_index_ = cut - start;
  if (cut == 0) first_append_ms_ = -1;
  return old - cut;
}

Status Segment::seal() {
  if (max_timestamp() >= 0) (void)time_index_->maybe_append(max_timestamp(), offset_of_max_timestamp());
  Status s = offset_index_->file().trim();
  if (s) s = time_index_->file().trim();
  return s;
}

Status Segment::make_active() {
  Status s = offset_index_->file().preallocate();
  if (s) s = time_index_->file().preallocate();
  return s;
}

Status Segment::flush_data() { return data_sync(fd_); }

Status Segment::flush_indexes() {
  Status s = offset_index_->file().sync();
  if (s) s = time_index_->file().sync();
  if (s) s = txn_index_->flush();
  return s;
}

Status Segment::remove_files() {
  Status s = Status::ok();
  if (fs().unlink(log_path_.c_str()) != 0 && errno != ENOENT) s = errno_status("unlink " + log_path_);
  Status a = offset_index_->file().remove();
  Status b = time_index_->file().remove();
  Status c = txn_index_->remove();
  if (!c) spdlog::warn("{}", c.message());
  if (!s) return s;
  return a ? b : a;
}

Status Segment::change_suffix(const std::string& suffix) {
  // Indexes first, the log last: the log's name is what recovery keys on.
  Status s = offset_index_->file().rename_to(dir_ + "/" + segment_file_name(base_offset_, ".index") + suffix);
  if (s) s = time_index_->file().rename_to(dir_ + "/" + segment_file_name(base_offset_, ".timeindex") + suffix);
  if (s) s = txn_index_->rename_to(dir_ + "/" + segment_file_name(base_offset_, ".txnindex") + suffix);
  if (!s) return s;
  std::string target = dir_ + "/" + segment_file_name(base_offset_, ".log") + suffix;
  if (fs().rename(log_path_.c_str(), target.c_str()) != 0) return errno_status("rename " + log_path_);
  log_path_ = target;
  suffix_ = suffix;
  return Status::ok();
}

Result<std::optional<int64_t>> Segment::position_of(int64_t offset) const {
  int64_t end = size();
  auto e = offset_index_->lookup(offset, end);
  BatchScanner sc(fd_, e.position, end, 64 * 1024);
  for (;;) {
    auto step = sc.next(false);
    if (step == BatchScanner::Step::kEnd) return std::optional<int64_t>();
    if (step == BatchScanner::Step::kIoError) return sc.io_status();
    if (step == BatchScanner::Step::kTorn)
      return Status::error(log_path_ + ": unreadable batch: " + sc.torn_reason(), kCorruptMessage);
    if (sc.header().last_offset() >= offset) return std::optional<int64_t>(sc.position());
  }
}

Result<Segment::Range> Segment::locate(int64_t offset, size_t max_bytes, int64_t max_offset, bool min_one) const {
  Range r;
  const int64_t end = size();
  auto e = offset_index_->lookup(offset, end);
  // Small chunks: only headers are wanted, so a large batch costs one small
  // pread, and a run of small batches still shares one.
  BatchScanner sc(fd_, e.position, end, 4 * 1024);
  bool found = false;
  for (;;) {
    auto step = sc.next(false);
    if (step == BatchScanner::Step::kEnd) break;
    if (step == BatchScanner::Step::kIoError) return sc.io_status();
    if (step == BatchScanner::Step::kTorn) {
      // Nothing here yet: the batch we need is unreadable. Inside the range:
      // stop before it, as a reader of the bytes would.
      if (!found) return Status::error(log_path_ + ": unreadable batch: " + sc.torn_reason(), kCorruptMessage);
      break;
    }
    const auto& h = sc.header();
    if (!found) {
      if (h.last_offset() < offset) continue;
      found = true;
      r.position = sc.position();
    }
    const size_t total = h.total_size();
    const bool first = r.bytes == 0;
    if (h.last_offset() >= max_offset) break;
    if (r.bytes + total > max_bytes && !(first && min_one)) break;
    r.bytes += total;
    r.next_offset = h.last_offset() + 1;
    if (r.bytes >= max_bytes) break;
  }
  if (!found) return r;
  r.stopped = r.position + static_cast<int64_t>(r.bytes) < end;
  return r;
}

namespace {
// First record with timestamp >= ts (decompressing when needed).
std::optional<std::pair<int64_t, int64_t>> scan_records(ByteSpan batch, const record::BatchHeader& h, int64_t ts) {
  Bytes scratch;
  auto section = record::records_section(h, batch, scratch);
  if (!section) return std::nullopt;
  record::RecordReader rd(*section, h.records_count, h.last_offset_delta);
  record::Record rec;
  for (;;) {
    auto more = rd.next(rec);
    if (!more || !*more) return std::nullopt;
    int64_t t = h.base_timestamp + rec.timestamp_delta;
    if (t >= ts) return std::make_pair(h.base_offset + rec.offset_delta, t);
  }
}
}  // namespace

Result<std::optional<std::pair<int64_t, int64_t>>> Segment::find_timestamp(int64_t ts) const {
  using Out = std::optional<std::pair<int64_t, int64_t>>;
  int64_t end = size();
  if (max_timestamp() < ts) return Out();
  auto te = time_index_->lookup(ts);
  auto oe = offset_index_->lookup(te.offset, end);
  BatchScanner sc(fd_, oe.position, end);
  for (;;) {
    auto step = sc.next(true);
    if (step == BatchScanner::Step::kEnd) return Out();
    if (step == BatchScanner::Step::kIoError) return sc.io_status();
    if (step == BatchScanner::Step::kTorn)
      return Status::error(log_path_ + ": unreadable batch: " + sc.torn_reason(), kCorruptMessage);
    const auto& h = sc.header();
    if (h.max_timestamp < ts) continue;
    if (h.log_append_time()) return Out(std::make_pair(h.base_offset, h.max_timestamp));  // one shared time
    if (auto r = scan_records(sc.bytes(), h, ts)) return Out(r);
    return Out(std::make_pair(h.base_offset, h.max_timestamp));
  }
}

}  // namespace spool::storage
