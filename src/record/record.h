// Records inside a v2 batch: decoding the records section.
//
// Ownership: decoded Records and Headers are views. They point into the batch
// bytes (uncompressed batches) or into the caller's `scratch` buffer
// (compressed batches), so both must outlive the result and `scratch` must not
// be modified meanwhile.
//
// Failure: every length, count and varint is checked against the bytes that
// are really there. Structural problems inside the records (bad lengths,
// truncation, trailing bytes, wrong count, negative lengths other than -1,
// null header keys, offset deltas out of order) give INVALID_RECORD (87);
// an undecodable compressed section gives CORRUPT_MESSAGE (2). Memory is
// bounded by the input size and max_uncompressed. Pure; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "record/batch_header.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::record {

// Cap for the decompressed records section of one batch unless the caller
// says otherwise.
inline constexpr size_t kDefaultMaxUncompressedBytes = 64 * 1024 * 1024;

struct Header {
  std::string_view key;                  // never null on the wire
  std::optional<std::string_view> value; // nullopt = null value
};

struct Record {
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  std::optional<ByteSpan> key;    // nullopt = null key
  std::optional<ByteSpan> value;  // nullopt = null value (tombstone)
  std::vector<Header> headers;
};

// Reads records one at a time from an already uncompressed records section,
// so callers that only need to check or scan records avoid holding them all.
class RecordReader {
 public:
  // `section` is the records section (after the 61-byte header, uncompressed);
  // `count` the records_count from the header; `last_offset_delta` bounds the
  // offset deltas.
  RecordReader(ByteSpan section, int32_t count, int32_t last_offset_delta);

  // Decodes the next record into `out`. Returns false once `count` records
  // have been read (after checking nothing trails them). Fails with
  // INVALID_RECORD on any malformed record.
  Result<bool> next(Record& out);

  int32_t records_read() const { return read_; }

 private:
  ByteReader r_;
  int32_t count_;
  int32_t last_offset_delta_;
  int32_t read_ = 0;
  int64_t prev_offset_delta_ = -1;
};

// The records section of `batch` (the whole batch, starting at base_offset)
// as plain bytes: a view into `batch` when uncompressed, otherwise
// decompressed into `scratch` (at most max_uncompressed bytes).
Result<ByteSpan> records_section(const BatchHeader& header, ByteSpan batch, Bytes& scratch,
                                 size_t max_uncompressed = kDefaultMaxUncompressedBytes);

// Decodes exactly header.records_count records. `header` should come from
// validate_batch(batch).
Result<std::vector<Record>> decode_records(const BatchHeader& header, ByteSpan batch,
                                           Bytes& scratch,
                                           size_t max_uncompressed = kDefaultMaxUncompressedBytes);

// Smallest possible encoded record: length, attributes, timestamp delta,
// offset delta, key length, value length, header count — one byte each.
inline constexpr size_t kMinRecordSize = 7;

}  // namespace spool::record
