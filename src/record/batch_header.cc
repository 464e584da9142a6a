#include "record/batch_header.h"

#include <string>

#include "record/error_codes.h"
#include "util/crc32c.h"

namespace spool::record {
namespace {

void put_be(uint8_t* p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

}  // namespace

Result<BatchHeader> read_header(ByteSpan batch) {
  if (batch.size() < kHeaderSize) {
    return Status::error("record batch truncated: " + std::to_string(batch.size()) +
                             " bytes, header needs " + std::to_string(kHeaderSize),
                         kCorruptMessage);
  }
  ByteReader r(batch.first(kHeaderSize));
  BatchHeader h;
  h.base_offset = r.i64();
  h.batch_length = r.i32();
  h.partition_leader_epoch = r.i32();
  h.magic = r.i8();
  h.crc = r.u32();
  h.attributes = r.i16();
  h.last_offset_delta = r.i32();
  h.base_timestamp = r.i64();
  h.max_timestamp = r.i64();
  h.producer_id = r.i64();
  h.producer_epoch = r.i16();
  h.base_sequence = r.i32();
  h.records_count = r.i32();
  return h;
}

Result<BatchHeader> validate_batch(ByteSpan batch) {
  auto hr = read_header(batch);
  if (!hr) return hr;
  const BatchHeader& h = hr.value();

  if (h.magic != 2) {
    return Status::error("unsupported record batch magic " + std::to_string(h.magic),
                         kCorruptMessage);
  }
  // batch_length counts everything after itself, so the smallest legal value
  // is the rest of the fixed header.
  constexpr int32_t kMinLength = static_cast<int32_t>(kHeaderSize - kLogOverhead);
  if (h.batch_length < kMinLength) {
    return Status::error("record batch length " + std::to_string(h.batch_length) +
                             " is below the header size",
                         kCorruptMessage);
  }
  if (h.total_size() > batch.size()) {
    return Status::error("record batch length " + std::to_string(h.batch_length) +
                             " runs past the " + std::to_string(batch.size()) + " available bytes",
                         kCorruptMessage);
  }
  const uint32_t crc =
      crc32c(batch.data() + kAttributesPos, h.total_size() - kAttributesPos);
  if (crc != h.crc) {
    return Status::error("record batch CRC mismatch (stored " + std::to_string(h.crc) +
                             ", computed " + std::to_string(crc) + ")",
                         kCorruptMessage);
  }
  if (static_cast<int>(h.compression()) > static_cast<int>(Compression::kZstd)) {
    return Status::error("unknown compression codec " + std::to_string(h.attributes & kCompressionMask),
                         kCorruptMessage);
  }
  if (h.last_offset_delta < 0) {
    return Status::error("negative last_offset_delta " + std::to_string(h.last_offset_delta),
                         kInvalidRecord);
  }
  if (h.records_count < 0) {
    return Status::error("negative records_count " + std::to_string(h.records_count),
                         kInvalidRecord);
  }
  // Compaction may leave fewer records than the offset range spans, never more.
  if (static_cast<int64_t>(h.records_count) > static_cast<int64_t>(h.last_offset_delta) + 1) {
    return Status::error("records_count " + std::to_string(h.records_count) +
                             " exceeds the offset range (last_offset_delta " +
                             std::to_string(h.last_offset_delta) + ")",
                         kInvalidRecord);
  }
  return hr;
}

void set_base_offset(uint8_t* batch, int64_t base_offset) {
  put_be(batch + kBaseOffsetPos, static_cast<uint64_t>(base_offset), 8);
}

void set_partition_leader_epoch(uint8_t* batch, int32_t epoch) {
  put_be(batch + kLeaderEpochPos, static_cast<uint32_t>(epoch), 4);
}

}  // namespace spool::record
