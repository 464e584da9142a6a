#include "storage/time_index.h"

namespace spool::storage {

TimeIndex::Entry TimeIndex::at(size_t i) const {
  const uint8_t* p = file_->entry(i);
  return {load_be64(p), base_offset_ + load_be32(p + 8)};
}

TimeIndex::Entry TimeIndex::lookup(int64_t ts) const {
  size_t n = entries();
  if (n == 0 || at(0).timestamp > ts) return {-1, base_offset_};
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (at(mid).timestamp <= ts) lo = mid; else hi = mid - 1;
  }
  return at(lo);
}

std::optional<TimeIndex::Entry> TimeIndex::last() const {
  size_t n = entries();
  if (n == 0) return std::nullopt;
  return at(n - 1);
}

Status TimeIndex::maybe_append(int64_t ts, int64_t offset) {
  auto l = last();
  if (l && (ts <= l->timestamp || offset < l->offset)) return Status::ok();
  uint8_t buf[kEntrySize];
  store_be64(buf, ts);
  store_be32(buf + 8, static_cast<int32_t>(offset - base_offset_));
  return file_->append(buf);
}

void TimeIndex::truncate_to(int64_t offset) {
  size_t n = entries();
  size_t keep = 0;
  while (keep < n && at(keep).offset < offset) ++keep;
  file_->truncate_entries(keep);
}

bool TimeIndex::sane(int64_t next_offset) const {
  size_t n = entries();
  int64_t prev_ts = INT64_MIN, prev_off = base_offset_;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = file_->entry(i);
    int64_t ts = load_be64(p);
    int32_t rel = load_be32(p + 8);
    if (rel < 0 || ts <= prev_ts || base_offset_ + rel < prev_off || base_offset_ + rel >= next_offset)
      return false;
    prev_ts = ts;
    prev_off = base_offset_ + rel;
  }
  return true;
}

}  // namespace spool::storage
