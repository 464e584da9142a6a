// Sequential reader of record batches in a segment file between two
// positions, through one reusable buffer (few syscalls for many small
// batches). It checks only the framing (length, magic) unless full batch
// bytes are requested, in which case the caller validates the CRC. Not
// thread-safe; one per scan. Never reads past `end`.
#pragma once

#include <cstdint>

#include "record/batch_header.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::storage {

class BatchScanner {
 public:
  enum class Step { kBatch, kEnd, kTorn, kIoError };

  BatchScanner(int fd, int64_t start, int64_t end, size_t chunk = 256 * 1024)
      : fd_(fd), pos_(start), end_(end), chunk_(chunk) {}

  // Advances to the next batch. kTorn: bytes remain but do not hold a whole,
  // well-framed batch. With `full`, bytes() spans the whole batch.
  Step next(bool full);

  int64_t position() const { return batch_pos_; }     // start of the current batch
  int64_t next_position() const { return pos_; }      // just past it
  const record::BatchHeader& header() const { return header_; }
  ByteSpan bytes() const { return bytes_; }
  const Status& io_status() const { return io_; }
  std::string torn_reason() const { return torn_; }

 private:
  bool ensure(int64_t pos, size_t n);

  int fd_;
  int64_t pos_;
  int64_t end_;
  size_t chunk_;
  Bytes buf_;
  int64_t buf_start_ = 0;
  size_t buf_len_ = 0;
  int64_t batch_pos_ = 0;
  record::BatchHeader header_;
  ByteSpan bytes_;
  Status io_;
  std::string torn_;
};

}  // namespace spool::storage
