#include "storage/producer_snapshot.h"

#include <dirent.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "storage/file_util.h"
#include "storage/segment.h"
#include "util/crc32c.h"

namespace spool::storage {
namespace {

constexpr uint8_t kMagic[4] = {'S', 'P', 'P', 'S'};
constexpr int16_t kVersion = 1;
constexpr size_t kCrcPos = 6;   // after magic + version
constexpr size_t kBodyPos = 10;  // after the crc
// Entry without batches, and one batch: bounds for the count check.
constexpr size_t kEntryFixed = 8 + 2 + 4 + 8 + 8 + 1;
constexpr size_t kBatchSize = 4 + 4 + 8 + 8 + 8;
constexpr size_t kMaxSnapshotBytes = 512u << 20;

Status corrupt(const std::string& why) { return Status::error("producer snapshot: " + why, kCorruptMessage); }

}  // namespace

Bytes encode_producer_snapshot(int64_t offset, const std::vector<ProducerEntry>& entries) {
  ByteWriter w(kBodyPos + 12 + entries.size() * (kEntryFixed + kBatchSize));
  w.bytes(ByteSpan(kMagic, sizeof kMagic));
  w.i16(kVersion);
  w.u32(0);  // crc, patched below
  w.i64(offset);
  w.i32(static_cast<int32_t>(entries.size()));
  for (const auto& e : entries) {
    w.i64(e.producer_id);
    w.i16(e.epoch);
    w.i32(e.coordinator_epoch);
    w.i64(e.current_txn_first_offset);
    w.i64(e.last_timestamp);
    size_t n = std::min(e.batches.size(), static_cast<size_t>(kProducerBatchesRetained));
    w.i8(static_cast<int8_t>(n));
    for (size_t i = e.batches.size() - n; i < e.batches.size(); ++i) {
      const auto& b = e.batches[i];
      w.i32(b.first_seq);
      w.i32(b.last_seq);
      w.i64(b.first_offset);
      w.i64(b.last_offset);
      w.i64(b.timestamp);
    }
  }
  Bytes out = w.take();
  uint32_t crc = crc32c(out.data() + kBodyPos, out.size() - kBodyPos);
  for (int i = 3; i >= 0; --i) {
    out[kCrcPos + i] = static_cast<uint8_t>(crc);
    crc >>= 8;
  }
  return out;
}

Result<std::vector<ProducerEntry>> decode_producer_snapshot(ByteSpan data, int64_t& offset) {
  if (data.size() < kBodyPos + 12) return corrupt("truncated header (" + std::to_string(data.size()) + " bytes)");
  if (!std::equal(kMagic, kMagic + 4, data.begin())) return corrupt("bad magic");
  ByteReader r(data);
  r.skip(4);
  int16_t version = r.i16();
  if (version != kVersion) return corrupt("unknown version " + std::to_string(version));
  uint32_t crc = r.u32();
  if (crc != crc32c(data.data() + kBodyPos, data.size() - kBodyPos)) return corrupt("CRC mismatch");
  offset = r.i64();
  int32_t count = r.i32();
  if (offset < 0) return corrupt("negative offset");
  if (count < 0 || static_cast<size_t>(count) > r.remaining() / kEntryFixed) return corrupt("bad entry count");
  std::vector<ProducerEntry> out;
  out.reserve(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    ProducerEntry e;
    e.producer_id = r.i64();
    e.epoch = r.i16();
    e.coordinator_epoch = r.i32();
    e.current_txn_first_offset = r.i64();
    e.last_timestamp = r.i64();
    int8_t n = r.i8();
    if (!r.ok()) return corrupt("truncated entry");
    if (e.producer_id < 0 || n < 0 || n > kProducerBatchesRetained) return corrupt("bad entry");
    for (int8_t k = 0; k < n; ++k) {
      ProducerBatchMeta b;
      b.first_seq = r.i32();
      b.last_seq = r.i32();
      b.first_offset = r.i64();
      b.last_offset = r.i64();
      b.timestamp = r.i64();
      if (!r.ok()) return corrupt("truncated batch");
      if (b.first_offset < 0 || b.last_offset < b.first_offset || b.last_offset >= offset)
        return corrupt("batch offsets outside the snapshot");
      e.batches.push_back(b);
    }
    out.push_back(std::move(e));
  }
  if (r.remaining() != 0) return corrupt("trailing bytes");
  return out;
}

std::string producer_snapshot_path(const std::string& dir, int64_t offset) {
  return dir + "/" + segment_file_name(offset, kSnapshotSuffix);
}

Status write_producer_snapshot(const std::string& dir, int64_t offset, const std::vector<ProducerEntry>& entries) {
  Bytes data = encode_producer_snapshot(offset, entries);
  // No fsync: a snapshot is an optimisation. One lost or torn by a power
  // failure fails its CRC and recovery falls back to an older one or a full
  // replay; syncing would put an fsync into every segment roll.
  return write_file_replace(producer_snapshot_path(dir, offset), data);
}

Result<std::vector<ProducerEntry>> read_producer_snapshot(const std::string& dir, int64_t offset) {
  auto content = read_small_file(producer_snapshot_path(dir, offset), kMaxSnapshotBytes);
  if (!content) return content.status();
  int64_t stored = -1;
  auto entries = decode_producer_snapshot(as_span(*content), stored);
  if (!entries) return entries.status();
  if (stored != offset) return corrupt("offset " + std::to_string(stored) + " does not match the file name");
  return entries;
}

std::vector<int64_t> list_producer_snapshots(const std::string& dir) {
  std::vector<int64_t> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d))
    if (auto o = parse_segment_file_name(e->d_name, kSnapshotSuffix)) out.push_back(*o);
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

void delete_producer_snapshot(const std::string& dir, int64_t offset) {
  remove_file_quiet(producer_snapshot_path(dir, offset));
}

void delete_producer_snapshots_below(const std::string& dir, int64_t below) {
  for (int64_t o : list_producer_snapshots(dir))
    if (o < below) delete_producer_snapshot(dir, o);
}

void delete_producer_snapshots_above(const std::string& dir, int64_t above) {
  for (int64_t o : list_producer_snapshots(dir))
    if (o > above) delete_producer_snapshot(dir, o);
}

}  // namespace spool::storage
