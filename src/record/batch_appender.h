// BatchAppender: builds one record batch v2 a record at a time, for the
// native producer's accumulator (client/producer/record_accumulator.h).
//
// Records are encoded straight into the batch buffer after a reserved
// 61-byte header, so an uncompressed batch is never copied. The header is
// written by close(), which also compresses the records section when the
// batch has a codec; the producer fields (id, epoch, base sequence) and the
// transactional bit can be (re)set after that with set_producer_state(),
// which rewrites them and the CRC in place (a retried batch after an epoch
// bump gets new ones).
//
// Sizes: estimated_size() is the batch's size so far before compression
// (Kafka's estimatedSizeInBytes, used against batch.size); record_size()
// tells what a record would add, so the caller can decide to open a new
// batch first. Failures: close() fails only when compression fails or the
// batch exceeds 2 GiB (INVALID_RECORD / CORRUPT_MESSAGE codes). Not
// thread-safe; one owner.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "record/batch_header.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::record {

struct AppendHeader {
  std::string_view key;
  std::optional<ByteSpan> value;  // nullopt = null
};

class BatchAppender {
 public:
  explicit BatchAppender(Compression compression = Compression::kNone, int compression_level = -1,
                         size_t reserve = 0);

  // Encoded size of a record with these fields (its length prefix included),
  // at an offset delta and timestamp delta that fit in 5 and 10 bytes.
  static size_t record_size(std::optional<ByteSpan> key, std::optional<ByteSpan> value,
                            std::span<const AppendHeader> headers);

  // Appends a record; its offset delta is its index. The first record's
  // timestamp is the batch's base timestamp.
  void append(int64_t timestamp, std::optional<ByteSpan> key, std::optional<ByteSpan> value,
              std::span<const AppendHeader> headers = {});

  int32_t record_count() const { return count_; }
  bool empty() const { return count_ == 0; }
  size_t estimated_size() const { return buf_.size(); }
  int64_t base_timestamp() const { return base_ts_; }
  int64_t max_timestamp() const { return max_ts_; }
  Compression compression() const { return compression_; }
  bool closed() const { return closed_; }

  // Writes the header (and compresses). Call once, with at least one record.
  Status close();
  // The complete batch; valid after close().
  const Bytes& bytes() const { return buf_; }
  Bytes& bytes() { return buf_; }

  // Sets producer id, epoch, base sequence and the transactional bit, and
  // recomputes the CRC. After close().
  void set_producer_state(int64_t producer_id, int16_t epoch, int32_t base_sequence, bool transactional);

 private:
  Compression compression_;
  int level_;
  Bytes buf_;
  int32_t count_ = 0;
  int64_t base_ts_ = 0;
  int64_t max_ts_ = 0;
  bool closed_ = false;
};

}  // namespace spool::record
