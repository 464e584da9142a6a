// Record batch v2 header: layout constants and a checked view of the fixed
// 61-byte header. The batch bytes are stored and served exactly as they came
// on the wire (docs/ARCHITECTURE.md section 1), so this reads fields in place and offers
// in-place rewrites of the two fields outside the CRC (base offset and
// partition leader epoch). Pure functions; no ownership.
#pragma once

#include <cstdint>

#include "util/bytes.h"
#include "util/status.h"

namespace spool::record {

// Byte offsets of the v2 header fields.
inline constexpr size_t kBaseOffsetPos = 0;
inline constexpr size_t kLengthPos = 8;           // batch_length: bytes after this field
inline constexpr size_t kLeaderEpochPos = 12;
inline constexpr size_t kMagicPos = 16;
inline constexpr size_t kCrcPos = 17;
inline constexpr size_t kAttributesPos = 21;      // CRC covers [21, end)
inline constexpr size_t kLastOffsetDeltaPos = 23;
inline constexpr size_t kBaseTimestampPos = 27;
inline constexpr size_t kMaxTimestampPos = 35;
inline constexpr size_t kProducerIdPos = 43;
inline constexpr size_t kProducerEpochPos = 51;
inline constexpr size_t kBaseSequencePos = 53;
inline constexpr size_t kRecordsCountPos = 57;
inline constexpr size_t kHeaderSize = 61;
inline constexpr size_t kLogOverhead = 12;        // base_offset + batch_length

// Attribute bits.
inline constexpr int16_t kCompressionMask = 0x07;
inline constexpr int16_t kTimestampTypeBit = 0x08;  // 1 = LogAppendTime
inline constexpr int16_t kTransactionalBit = 0x10;
inline constexpr int16_t kControlBit = 0x20;
inline constexpr int16_t kDeleteHorizonBit = 0x40;

enum class Compression : int8_t { kNone = 0, kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };

struct BatchHeader {
  int64_t base_offset = 0;
  int32_t batch_length = 0;
  int32_t partition_leader_epoch = 0;
  int8_t magic = 0;
  uint32_t crc = 0;
  int16_t attributes = 0;
  int32_t last_offset_delta = 0;
  int64_t base_timestamp = 0;
  int64_t max_timestamp = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  int32_t records_count = 0;

  size_t total_size() const { return kLogOverhead + static_cast<size_t>(batch_length); }
  int64_t last_offset() const { return base_offset + last_offset_delta; }
  Compression compression() const { return static_cast<Compression>(attributes & kCompressionMask); }
  bool is_transactional() const { return attributes & kTransactionalBit; }
  bool is_control() const { return attributes & kControlBit; }
  bool log_append_time() const { return attributes & kTimestampTypeBit; }
};

// Reads the header fields from the first kHeaderSize bytes. Checks only that
// enough bytes exist; use validate_batch() for the full checks.
Result<BatchHeader> read_header(ByteSpan batch);

// Full validation of one batch that starts at batch[0]: enough bytes for the
// header and for batch_length, magic == 2, batch_length within bounds,
// last_offset_delta/records_count sane, and the CRC-32C over
// [kAttributesPos, end). Errors carry CORRUPT_MESSAGE (2) or
// INVALID_RECORD (87) codes. Does not decompress records.
Result<BatchHeader> validate_batch(ByteSpan batch);

// In-place rewrites outside the CRC.
void set_base_offset(uint8_t* batch, int64_t base_offset);
void set_partition_leader_epoch(uint8_t* batch, int32_t epoch);

}  // namespace spool::record
