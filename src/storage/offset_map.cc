#include "storage/offset_map.h"

#include <algorithm>
#include <cstring>

namespace spool::storage {
namespace {

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Final avalanche (the splitmix64 constants): every input bit flips about
// half of the output bits.
inline uint64_t avalanche(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

inline uint64_t load_le64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // host order: digests never leave the process
}

// A word-at-a-time multiplicative hash; two seeds give two independent lanes.
uint64_t hash64(ByteSpan key, uint64_t seed) {
  const uint64_t m1 = 0x9e3779b97f4a7c15ULL, m2 = 0xc2b2ae3d27d4eb4fULL;
  uint64_t h = seed ^ (key.size() * m1);
  size_t i = 0;
  for (; i + 8 <= key.size(); i += 8) {
    uint64_t w = load_le64(key.data() + i) * m2;
    w = rotl(w, 31) * m1;
    h = rotl(h ^ w, 27) * 5 + 0x52dce729;
  }
  uint64_t tail = 0;
  for (size_t k = 0; i + k < key.size(); ++k) tail |= static_cast<uint64_t>(key[i + k]) << (8 * k);
  h ^= rotl(tail * m2, 33) * m1;
  return avalanche(h ^ key.size());
}

}  // namespace

KeyDigest digest_key(ByteSpan key) {
  return KeyDigest{hash64(key, 0x243f6a8885a308d3ULL), hash64(key, 0x13198a2e03707344ULL)};
}

KeyOffsetMap::KeyOffsetMap(size_t memory_bytes, double load_factor)
    : budget_slots_(std::max<size_t>(memory_bytes / kSlotBytes, 16)),
      load_factor_(std::clamp(load_factor, 0.1, 0.95)) {}

size_t KeyOffsetMap::max_entries_at_budget() const {
  return static_cast<size_t>(static_cast<double>(budget_slots_) * load_factor_);
}

void KeyOffsetMap::reset(int64_t expected_entries) {
  size_t want = budget_slots_;
  if (expected_entries >= 0) {
    double need = static_cast<double>(expected_entries) / load_factor_ + 16;
    if (need < static_cast<double>(budget_slots_)) want = static_cast<size_t>(need);
  }
  slots_.assign(want, Slot{KeyDigest{}, -1});
  size_ = 0;
  max_entries_ = std::min(want - 1, static_cast<size_t>(static_cast<double>(want) * load_factor_));
  latest_ = -1;
}

size_t KeyOffsetMap::slot_of(const KeyDigest& d) const { return static_cast<size_t>(d.a % slots_.size()); }

bool KeyOffsetMap::put(const KeyDigest& d, int64_t offset) {
  if (slots_.empty()) return false;
  size_t i = slot_of(d);
  for (;;) {
    Slot& s = slots_[i];
    if (s.offset < 0) {
      if (size_ >= max_entries_) return false;
      s.d = d;
      s.offset = offset;
      ++size_;
      break;
    }
    if (s.d == d) {
      s.offset = std::max(s.offset, offset);
      break;
    }
    if (++i == slots_.size()) i = 0;
  }
  latest_ = std::max(latest_, offset);
  return true;
}

int64_t KeyOffsetMap::get(const KeyDigest& d) const {
  if (slots_.empty()) return -1;
  size_t i = slot_of(d);
  for (;;) {
    const Slot& s = slots_[i];
    if (s.offset < 0) return -1;
    if (s.d == d) return s.offset;
    if (++i == slots_.size()) i = 0;
  }
}

bool KeyOffsetMap::put(ByteSpan key, int64_t offset) { return put(digest_key(key), offset); }
int64_t KeyOffsetMap::get(ByteSpan key) const { return get(digest_key(key)); }

}  // namespace spool::storage
