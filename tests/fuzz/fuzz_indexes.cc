// Fuzzes the index readers of a segment (storage/offset_index.h,
// time_index.h over index_file.h, and txn_index.h) on arbitrary file bytes,
// as a broker meets them after a crash or a disk fault: the file is written
// to a scratch dir and opened as the broker opens it.
//
// Input: byte 0 picks the index (mod 3: .index, .timeindex, .txnindex);
// bytes 1-8 are parameters (base offset, log size / next offset, map size,
// the lookup targets derive from them); the rest is the file.
// Offset and time index: opening must not fail on any content; when sane()
// accepts the entries (what Segment::load trusts), every lookup must answer
// within the contract (an entry at or below the target, a position inside
// the log, or the "none" entry), and truncation must keep only entries
// below its offset. Transaction index: opening keeps the valid prefix and
// cuts the file to it, so opening again reads the same entries; a
// truncation rewrites the file, and reopening reads what is in memory.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_scratch_dir.h"
#include "storage/index_file.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "storage/txn_index.h"

namespace {

using namespace spool;
using namespace spool::storage;

void write_file(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

struct Params {
  int64_t base_offset;
  int64_t bound;      // log size (offset index) or next offset (time index)
  size_t max_bytes;   // the mapping size asked for
  int64_t targets[4];
};

Params params_of(const uint8_t* p) {
  Params out;
  out.base_offset = (int64_t(p[0]) << 16) | (int64_t(p[1]) << 8);
  out.bound = (int64_t(p[2]) << 16) | (int64_t(p[3]) << 8) | p[4];
  out.max_bytes = size_t(p[5]) * 64;
  const int64_t t = (int64_t(p[6]) << 8) | p[7];
  out.targets[0] = out.base_offset + t;
  out.targets[1] = out.base_offset - 1;
  out.targets[2] = INT64_MAX;
  out.targets[3] = t * 1000;
  return out;
}

void offset_index(const std::string& path, const Params& p) {
  auto f = IndexFile::open(path, OffsetIndex::kEntrySize, p.max_bytes, false);
  if (!f) __builtin_trap();  // any content opens; only I/O errors fail
  OffsetIndex idx(std::move(*f), p.base_offset);
  if (!idx.sane(p.bound)) return;
  for (int64_t target : p.targets) {
    const auto e = idx.lookup(target);
    const bool none = e.offset == p.base_offset && e.position == 0;
    if (!none && (e.offset > target || e.position <= 0 || e.position >= p.bound)) __builtin_trap();
    const auto capped = idx.lookup(target, p.bound / 2);
    const bool capped_none = capped.offset == p.base_offset && capped.position == 0;
    if (!capped_none && (capped.offset > target || capped.position >= p.bound / 2)) __builtin_trap();
  }
  idx.truncate_to(p.targets[0]);
  for (size_t i = 0; i < idx.entries(); ++i) {
    if (idx.at(i).offset >= p.targets[0]) __builtin_trap();
  }
}

void time_index(const std::string& path, const Params& p) {
  auto f = IndexFile::open(path, TimeIndex::kEntrySize, p.max_bytes, false);
  if (!f) __builtin_trap();
  TimeIndex idx(std::move(*f), p.base_offset);
  if (!idx.sane(p.bound)) return;
  for (int64_t ts : p.targets) {
    const auto e = idx.lookup(ts);
    const bool none = e.timestamp == -1 && e.offset == p.base_offset;
    if (!none && (e.timestamp > ts || e.offset < p.base_offset || e.offset >= p.bound)) __builtin_trap();
  }
  idx.truncate_to(p.targets[0]);
  for (size_t i = 0; i < idx.entries(); ++i) {
    if (idx.at(i).offset >= p.targets[0]) __builtin_trap();
  }
}

void txn_index(const std::string& path, const Params& p) {
  auto idx = TxnIndex::open(path);
  if (!idx) __builtin_trap();
  const std::vector<AbortedTxn> first = (*idx)->entries();
  for (const auto& t : first) {
    if (t.producer_id < 0 || t.first_offset < 0 || t.last_offset < t.first_offset) __builtin_trap();
  }
  std::vector<AbortedTxn> collected;
  (void)(*idx)->collect(p.targets[0], p.bound, collected);
  for (const auto& t : collected) {
    if (t.last_offset < p.targets[0] || t.first_offset >= p.bound) __builtin_trap();
  }
  idx->reset();
  auto reopened = TxnIndex::open(path);
  if (!reopened || (*reopened)->entries() != first) __builtin_trap();
  if (!(*reopened)->truncate_to(p.targets[0])) __builtin_trap();
  const std::vector<AbortedTxn> kept = (*reopened)->entries();
  for (const auto& t : kept) {
    if (t.last_offset >= p.targets[0]) __builtin_trap();
  }
  reopened->reset();
  auto third = TxnIndex::open(path);
  if (!third || (*third)->entries() != kept) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 9) return 0;
  const Params p = params_of(data + 1);
  static const std::string dir = fuzz::scratch_dir("spool-fuzz-indexes").path();
  static const char* kNames[3] = {"/00000000000000000000.index", "/00000000000000000000.timeindex",
                                  "/00000000000000000000.txnindex"};
  const int which = data[0] % 3;
  const std::string path = dir + kNames[which];
  write_file(path, data + 9, size - 9);
  switch (which) {
    case 0: offset_index(path, p); break;
    case 1: time_index(path, p); break;
    case 2: txn_index(path, p); break;
  }
  return 0;
}
