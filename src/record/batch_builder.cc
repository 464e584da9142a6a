#include "record/batch_builder.h"

#include <algorithm>
#include <limits>

#include "record/compression.h"
#include "record/error_codes.h"
#include "util/crc32c.h"

namespace spool::record {
namespace {

constexpr size_t kMaxField = static_cast<size_t>(std::numeric_limits<int32_t>::max());

Status too_large(const char* what) {
  return Status::error(std::string(what) + " larger than 2 GiB", kInvalidRecord);
}

void put_be(uint8_t* p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

void write_nullable(ByteWriter& w, const std::optional<Bytes>& b) {
  if (!b) {
    w.varint32(-1);
    return;
  }
  w.varint32(static_cast<int32_t>(b->size()));
  w.bytes(ByteSpan(*b));
}

int32_t delta_of(const BuildRecord& r, size_t index) {
  return r.offset_delta ? *r.offset_delta : static_cast<int32_t>(index);
}

}  // namespace

BuildRecord BuildRecord::of(std::string_view key, std::string_view value, int64_t ts) {
  BuildRecord r;
  r.key = Bytes(key.begin(), key.end());
  r.value = Bytes(value.begin(), value.end());
  r.timestamp = ts;
  return r;
}

Result<Bytes> encode_records(std::span<const BuildRecord> records, int64_t base_timestamp) {
  if (records.size() > kMaxField) return too_large("record count");
  ByteWriter out;
  ByteWriter body;
  int64_t prev_delta = -1;
  for (size_t i = 0; i < records.size(); ++i) {
    const BuildRecord& rec = records[i];
    const int32_t delta = delta_of(rec, i);
    if (delta < 0 || delta <= prev_delta) {
      return Status::error("offset deltas must be non-negative and strictly increasing",
                           kInvalidRecord);
    }
    prev_delta = delta;
    if ((rec.key && rec.key->size() > kMaxField) || (rec.value && rec.value->size() > kMaxField) ||
        rec.headers.size() > kMaxField) {
      return too_large("record field");
    }
    body.buffer().clear();
    body.i8(0);  // record attributes: unused by v2
    // Wrapping subtraction: extreme timestamps must not be UB; Kafka stores
    // the same two's-complement delta.
    body.varint64(static_cast<int64_t>(static_cast<uint64_t>(rec.timestamp) -
                                       static_cast<uint64_t>(base_timestamp)));
    body.varint32(delta);
    write_nullable(body, rec.key);
    write_nullable(body, rec.value);
    body.varint32(static_cast<int32_t>(rec.headers.size()));
    for (const BuildHeader& h : rec.headers) {
      if (h.key.size() > kMaxField || (h.value && h.value->size() > kMaxField)) {
        return too_large("header");
      }
      body.varint32(static_cast<int32_t>(h.key.size()));
      body.bytes(std::string_view(h.key));
      write_nullable(body, h.value);
    }
    if (body.size() > kMaxField) return too_large("record");
    out.varint32(static_cast<int32_t>(body.size()));
    out.bytes(ByteSpan(body.buffer()));
  }
  return out.take();
}

Result<Bytes> build_batch(const BatchOptions& opt, std::span<const BuildRecord> records) {
  if (records.empty()) return Status::error("a batch needs at least one record", kInvalidRecord);
  if (static_cast<int>(opt.compression) < 0 ||
      static_cast<int>(opt.compression) > static_cast<int>(Compression::kZstd)) {
    return Status::error("unknown compression codec", kCorruptMessage);
  }
  const int64_t base_ts = records.front().timestamp;
  int64_t max_ts = base_ts;
  for (const BuildRecord& r : records) max_ts = std::max(max_ts, r.timestamp);

  auto encoded = encode_records(records, base_ts);
  if (!encoded) return encoded.status();
  int32_t last_delta = delta_of(records.back(), records.size() - 1);
  if (opt.last_offset_delta) {
    if (*opt.last_offset_delta < last_delta) {
      return Status::error("last_offset_delta below the last record's offset delta",
                           kInvalidRecord);
    }
    last_delta = *opt.last_offset_delta;
  }

  Bytes section;
  if (opt.compression == Compression::kNone) {
    section = std::move(encoded.value());
  } else {
    auto c = compress(opt.compression, ByteSpan(encoded.value()), opt.compression_level);
    if (!c) return c.status();
    section = std::move(c.value());
  }
  if (section.size() > kMaxField - kHeaderSize) return too_large("batch");

  int16_t attributes = static_cast<int16_t>(opt.compression);
  if (opt.log_append_time) attributes |= kTimestampTypeBit;
  if (opt.transactional) attributes |= kTransactionalBit;
  if (opt.control) attributes |= kControlBit;

  ByteWriter w(kHeaderSize + section.size());
  w.i64(opt.base_offset);
  w.i32(static_cast<int32_t>(kHeaderSize - kLogOverhead + section.size()));
  w.i32(opt.partition_leader_epoch);
  w.i8(2);
  w.u32(0);  // CRC, filled in below
  w.i16(attributes);
  w.i32(last_delta);
  w.i64(base_ts);
  w.i64(max_ts);
  w.i64(opt.producer_id);
  w.i16(opt.producer_epoch);
  w.i32(opt.base_sequence);
  w.i32(static_cast<int32_t>(records.size()));
  w.bytes(ByteSpan(section));
  Bytes out = w.take();
  update_crc(out.data(), out.size());
  return out;
}

void update_crc(uint8_t* batch, size_t len) {
  if (batch == nullptr || len < kHeaderSize) return;
  put_be(batch + kCrcPos, crc32c(batch + kAttributesPos, len - kAttributesPos), 4);
}

void set_log_append_time(uint8_t* batch, size_t len, int64_t ts) {
  if (batch == nullptr || len < kHeaderSize) return;
  uint16_t attrs = static_cast<uint16_t>((batch[kAttributesPos] << 8) | batch[kAttributesPos + 1]);
  attrs |= static_cast<uint16_t>(kTimestampTypeBit);
  put_be(batch + kAttributesPos, attrs, 2);
  put_be(batch + kMaxTimestampPos, static_cast<uint64_t>(ts), 8);
  update_crc(batch, len);
}

}  // namespace spool::record
