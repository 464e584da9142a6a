#include "storage/offset_index.h"

namespace spool::storage {

OffsetIndex::Entry OffsetIndex::at(size_t i) const {
  const uint8_t* p = file_->entry(i);
  return {base_offset_ + load_be32(p), load_be32(p + 4)};
}

OffsetIndex::Entry OffsetIndex::lookup(int64_t target) const {
  size_t n = entries();
  if (n == 0 || at(0).offset > target) return {base_offset_, 0};
  size_t lo = 0, hi = n - 1;  // invariant: at(lo).offset <= target
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (at(mid).offset <= target) lo = mid; else hi = mid - 1;
  }
  return at(lo);
}

OffsetIndex::Entry OffsetIndex::lookup(int64_t target, int64_t max_position) const {
  size_t n = entries();
  if (n == 0 || at(0).offset > target) return {base_offset_, 0};
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (at(mid).offset <= target) lo = mid; else hi = mid - 1;
  }
  while (at(lo).position >= max_position) {
    if (lo == 0) return {base_offset_, 0};
    --lo;
  }
  return at(lo);
}

std::optional<OffsetIndex::Entry> OffsetIndex::last() const {
  size_t n = entries();
  if (n == 0) return std::nullopt;
  return at(n - 1);
}

Status OffsetIndex::append(int64_t offset, int64_t position) {
  uint8_t buf[kEntrySize];
  store_be32(buf, static_cast<int32_t>(offset - base_offset_));
  store_be32(buf + 4, static_cast<int32_t>(position));
  return file_->append(buf);
}

void OffsetIndex::truncate_to(int64_t offset) {
  size_t n = entries();
  size_t keep = 0;
  while (keep < n && at(keep).offset < offset) ++keep;
  file_->truncate_entries(keep);
}

bool OffsetIndex::sane(int64_t log_size) const {
  size_t n = entries();
  int64_t prev_off = base_offset_ - 1, prev_pos = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = file_->entry(i);
    int32_t rel = load_be32(p), pos = load_be32(p + 4);
    // Position 0 is never indexed (an entry follows at least one interval of
    // bytes), so a zero entry is preallocation residue from a crash.
    if (rel < 0 || pos <= prev_pos || pos >= log_size || base_offset_ + rel <= prev_off) return false;
    prev_off = base_offset_ + rel;
    prev_pos = pos;
  }
  return true;
}

}  // namespace spool::storage
