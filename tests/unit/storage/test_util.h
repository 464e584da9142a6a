// Helpers for storage tests: a self-deleting temp dir and batch builders.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/temp_dir.h"
#include "record/batch_builder.h"
#include "storage/log.h"

namespace spool::storage::testing {

class TempDir : public test_support::TempDir {
 public:
  TempDir() : test_support::TempDir("spool-storage") {}
};

// One uncompressed batch of `n` records; record i has timestamp ts + i and a
// value of `value_bytes` bytes.
inline Bytes make_batch(int n, int64_t ts = 1000, size_t value_bytes = 10,
                        record::Compression c = record::Compression::kNone) {
  std::vector<record::BuildRecord> recs;
  for (int i = 0; i < n; ++i) {
    record::BuildRecord r;
    r.key = Bytes{'k'};
    r.value = Bytes(value_bytes, static_cast<uint8_t>('a' + i % 26));
    r.timestamp = ts + i;
    recs.push_back(std::move(r));
  }
  record::BatchOptions o;
  o.compression = c;
  auto b = record::build_batch(o, recs);
  EXPECT_TRUE(b.is_ok()) << b.status().message();
  return b.is_ok() ? *b : Bytes{};
}

inline AppendResult append(Log& log, int n, int64_t ts = 1000, size_t value_bytes = 10, int32_t epoch = 0) {
  Bytes b = make_batch(n, ts, value_bytes);
  auto r = log.append(std::span<uint8_t>(b), n, epoch);
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  return r.is_ok() ? *r : AppendResult{};
}

// Walks batches in a read result: (base offset, last offset) pairs.
inline std::vector<std::pair<int64_t, int64_t>> batches_in(const Bytes& records) {
  std::vector<std::pair<int64_t, int64_t>> out;
  size_t pos = 0;
  while (pos + record::kHeaderSize <= records.size()) {
    auto h = record::read_header(ByteSpan(records).subspan(pos));
    if (!h) break;
    out.emplace_back(h->base_offset, h->last_offset());
    pos += h->total_size();
  }
  EXPECT_EQ(pos, records.size()) << "partial batch in read result";
  return out;
}

inline LogConfig small_config() {
  LogConfig c;
  c.segment_bytes = 2048;
  c.index_interval_bytes = 256;
  c.segment_index_bytes = 4096;
  return c;
}

inline std::shared_ptr<Log> open_log(const std::string& dir, const LogConfig& cfg, bool clean = false,
                                     int64_t recovery_point = 0, int64_t log_start = 0) {
  Log::OpenOptions o;
  o.dir = dir;
  o.topic = "t";
  o.partition = 0;
  o.config = cfg;
  o.clean_shutdown = clean;
  o.recovery_point = recovery_point;
  o.log_start_offset = log_start;
  auto r = Log::open(o);
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  return r.is_ok() ? *r : nullptr;
}

inline void append_bytes_to(const std::string& path, const Bytes& b) {
  std::ofstream f(path, std::ios::binary | std::ios::app);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

inline std::string seg_path(const std::string& dir, int64_t base, const char* ext) {
  return dir + "/" + segment_file_name(base, ext);
}

}  // namespace spool::storage::testing
