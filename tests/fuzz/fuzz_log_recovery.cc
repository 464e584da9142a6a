// Fuzzes crash recovery of a partition on arbitrary segment bytes: the
// batch scanner (storage/batch_scanner.h) and Log::open's recovery
// (storage/log.h: scan from the recovery point, truncate a torn or corrupt
// tail, rebuild the indexes, the epoch cache and the producer state).
//
// Input: byte 0 is flags, byte 1 a split point, the rest the bytes of the
// partition's segment files:
//   bit 0  patch every well-framed batch's CRC (random bytes rarely carry a
//          right one; with it the fuzzer reaches past validation)
//   bit 1  two segments: the bytes are cut at (split * len / 256) into
//          00000000000000000000.log and a second segment whose base offset
//          is the first batch's base offset there (or byte 1 when none)
// The files go into one partition dir of a scratch dir reused by every run.
// The checks, beyond "no crash, no sanitizer report":
//  * the scanner moves forward, stays inside the file and ends;
//  * Log::open succeeds (recovery handles any content; only I/O fails);
//  * what it kept reads back as valid batches with rising offsets below
//    the log end, and no more bytes than the input had;
//  * recovery is stable: after a clean close, reopening (clean, so the
//    index-trusting load path runs, then unclean, so recovery runs again)
//    finds the same log start, log end and bytes.
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_scratch_dir.h"
#include "record/batch_header.h"
#include "storage/batch_scanner.h"
#include "storage/log.h"
#include "util/crc32c.h"

namespace {

using namespace spool;
using namespace spool::storage;

uint32_t be32(const uint8_t* p) { return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3]; }
int64_t be64(const uint8_t* p) { return static_cast<int64_t>((uint64_t(be32(p)) << 32) | be32(p + 4)); }

// Patches the CRC of every well-framed batch from the start, stopping at
// the first frame that does not fit.
void fix_crcs(Bytes& b) {
  size_t pos = 0;
  while (pos + record::kHeaderSize <= b.size()) {
    const size_t total = record::kLogOverhead + be32(b.data() + pos + record::kLengthPos);
    if (total < record::kHeaderSize || total > b.size() - pos) return;
    uint32_t crc = crc32c(b.data() + pos + record::kAttributesPos, total - record::kAttributesPos);
    for (int i = 3; i >= 0; --i, crc >>= 8) b[pos + record::kCrcPos + static_cast<size_t>(i)] = static_cast<uint8_t>(crc);
    pos += total;
  }
}

void write_file(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

std::string segment_name(int64_t base) {
  std::string digits = std::to_string(base);
  return std::string(20 - digits.size(), '0') + digits + ".log";
}

void scan(const std::string& path, size_t chunk) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) __builtin_trap();
  const int64_t size = ::lseek(fd, 0, SEEK_END);
  BatchScanner sc(fd, 0, size, chunk);
  int64_t last = -1;
  for (int steps = 0;; ++steps) {
    const auto step = sc.next(steps % 2 == 0);
    if (step != BatchScanner::Step::kBatch) break;
    if (sc.position() <= last || sc.next_position() <= sc.position() || sc.next_position() > size) __builtin_trap();
    last = sc.position();
  }
  ::close(fd);
}

struct Seen {
  int64_t start = 0;
  int64_t end = 0;
  Bytes bytes;
  bool operator==(const Seen&) const = default;
};

Seen open_and_check(const std::string& dir, bool clean, size_t input_bytes) {
  Log::OpenOptions o;
  o.dir = dir;
  o.topic = "t";
  o.partition = 0;
  o.config.segment_index_bytes = 64 * 1024;
  o.config.index_interval_bytes = 128;
  o.clean_shutdown = clean;
  o.defer_recovery_sync = true;
  auto log = Log::open(o);
  if (!log) __builtin_trap();  // recovery copes with any content
  Seen seen{(*log)->log_start_offset(), (*log)->log_end_offset(), {}};
  if (seen.start > seen.end) __builtin_trap();
  auto read = (*log)->read(seen.start, INT32_MAX, seen.end, true);
  if (!read) __builtin_trap();
  seen.bytes = std::move(read->records);
  if (seen.bytes.size() > input_bytes) __builtin_trap();
  int64_t next = -1;
  for (size_t pos = 0; pos < seen.bytes.size();) {
    auto h = record::validate_batch(ByteSpan(seen.bytes).subspan(pos));
    if (!h || h->base_offset <= next || h->last_offset() >= seen.end) __builtin_trap();
    next = h->last_offset();
    pos += h->total_size();
  }
  if (!(*log)->close()) __builtin_trap();
  return seen;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);  // recovery logs every torn byte it drops
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t flags = data[0];
  Bytes bytes(data + 2, data + size);
  if (flags & 1) fix_crcs(bytes);

  const auto& scratch = fuzz::scratch_dir("spool-fuzz-recovery");
  scratch.clear();
  const std::string dir = scratch.sub("t-0");
  std::filesystem::create_directory(dir);
  size_t cut = bytes.size();
  int64_t second_base = data[1];
  if (flags & 2) {
    cut = bytes.size() * data[1] / 256;
    if (cut + 12 <= bytes.size()) second_base = std::max<int64_t>(0, be64(bytes.data() + cut));
    if (second_base == 0) second_base = 1;  // the first segment is 0
  }
  write_file(dir + "/" + segment_name(0), bytes.data(), cut);
  if (cut < bytes.size()) write_file(dir + "/" + segment_name(second_base), bytes.data() + cut, bytes.size() - cut);

  scan(dir + "/" + segment_name(0), 64 + data[1]);

  const Seen recovered = open_and_check(dir, false, bytes.size());
  if (!(open_and_check(dir, true, bytes.size()) == recovered)) __builtin_trap();
  if (!(open_and_check(dir, false, bytes.size()) == recovered)) __builtin_trap();
  return 0;
}
