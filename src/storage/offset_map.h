// KeyOffsetMap: the cleaner's key -> latest offset table for the dirty
// section of one log.
//
// Keys are not stored: each is reduced to a 128-bit digest (two independent
// 64-bit hashes), so memory is 24 bytes per slot whatever the key size, and a
// fixed budget bounds the table (Kafka's dedupe buffer does the same). Two
// keys with the same digest would make the cleaner drop the older one's
// latest value; at 128 bits that needs ~2^64 keys, so it is accepted.
// Open addressing with linear probing; the table is never more than
// `load_factor` full (put() refuses instead), so probes stay short.
// Not thread-safe: one cleaner pass owns it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/bytes.h"

namespace spool::storage {

struct KeyDigest {
  uint64_t a = 0;
  uint64_t b = 0;
  bool operator==(const KeyDigest&) const = default;
};

KeyDigest digest_key(ByteSpan key);

class KeyOffsetMap {
 public:
  static constexpr size_t kSlotBytes = 24;

  // `memory_bytes`: the most the table may ever use.
  explicit KeyOffsetMap(size_t memory_bytes, double load_factor = 0.9);

  // Empties the table and sizes it for up to `expected_entries` keys (fewer
  // slots than the budget when the dirty section is small).
  void reset(int64_t expected_entries);

  // Records `offset` as the latest for `key`. False when a new key does not
  // fit (the table is at its load limit); existing keys always update.
  bool put(ByteSpan key, int64_t offset);
  bool put(const KeyDigest& d, int64_t offset);
  // Latest offset for `key`, or -1.
  int64_t get(ByteSpan key) const;
  int64_t get(const KeyDigest& d) const;

  size_t size() const { return size_; }
  // Keys the table can take at its current size / at the memory budget.
  size_t max_entries() const { return max_entries_; }
  size_t max_entries_at_budget() const;
  bool has_room(size_t more) const { return size_ + more <= max_entries_; }
  // Largest offset ever put since reset() (-1 when none).
  int64_t latest_offset() const { return latest_; }

 private:
  struct Slot {
    KeyDigest d;
    int64_t offset;  // -1 = empty
  };
  size_t slot_of(const KeyDigest& d) const;

  size_t budget_slots_;
  double load_factor_;
  std::vector<Slot> slots_;
  size_t size_ = 0;
  size_t max_entries_ = 0;
  int64_t latest_ = -1;
};

}  // namespace spool::storage
