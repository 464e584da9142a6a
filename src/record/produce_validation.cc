#include "record/produce_validation.h"

#include <string>

#include "record/error_codes.h"

namespace spool::record {
namespace {

Status at_batch(size_t index, size_t position, const std::string& what, int16_t code) {
  return Status::error("batch " + std::to_string(index) + " at byte " + std::to_string(position) +
                           ": " + what,
                       code);
}

// Header rules Kafka applies to client batches before looking at records.
Status check_client_header(const BatchHeader& h, size_t index, size_t pos) {
  if (h.records_count <= 0) {
    return at_batch(index, pos, "batch holds no records", kInvalidRecord);
  }
  if (static_cast<int64_t>(h.records_count) != static_cast<int64_t>(h.last_offset_delta) + 1) {
    return at_batch(index, pos,
                    "records_count " + std::to_string(h.records_count) +
                        " does not match last_offset_delta " + std::to_string(h.last_offset_delta),
                    kInvalidRecord);
  }
  if (h.is_control()) {
    return at_batch(index, pos, "clients may not write control batches", kInvalidRecord);
  }
  if (h.producer_id >= 0 && h.base_sequence < 0) {
    return at_batch(index, pos,
                    "producer id " + std::to_string(h.producer_id) + " with invalid sequence " +
                        std::to_string(h.base_sequence),
                    kInvalidRecord);
  }
  if (h.is_transactional() && h.producer_id < 0) {
    return at_batch(index, pos, "transactional batch without producer id", kInvalidRecord);
  }
  return Status::ok();
}

// Decodes every record; the offset deltas of a client batch must be exactly
// 0..n-1 because offsets are assigned by rewriting only base_offset.
Status check_records(ValidatedBatch& vb, ByteSpan batch, Bytes& scratch, size_t max_uncompressed,
                     size_t index) {
  const BatchHeader& h = vb.header;
  auto section = records_section(h, batch, scratch, max_uncompressed);
  if (!section) {
    const Status& s = section.status();
    return at_batch(index, vb.position, s.message(), s.kafka_code());
  }
  RecordReader reader(*section, h.records_count, h.last_offset_delta);
  Record rec;
  bool first = true;
  for (int32_t i = 0;; ++i) {
    auto more = reader.next(rec);
    if (!more) return at_batch(index, vb.position, more.status().message(), kInvalidRecord);
    if (!*more) break;
    if (rec.offset_delta != i) {
      return at_batch(index, vb.position,
                      "record " + std::to_string(i) + " has offset delta " +
                          std::to_string(rec.offset_delta),
                      kInvalidRecord);
    }
    const int64_t ts = static_cast<int64_t>(static_cast<uint64_t>(h.base_timestamp) +
                                            static_cast<uint64_t>(rec.timestamp_delta));
    if (first || ts > vb.max_timestamp) {
      vb.max_timestamp = ts;
      vb.max_timestamp_delta = rec.offset_delta;
      first = false;
    }
  }
  return Status::ok();
}

// Raw-pointer varint readers for the walk, with ByteReader's exact rules
// (at most 5 / 10 bytes, a 32-bit value must fit) so kWalk and kDeep agree.
// The walk reads ~6 varints per record; almost all are one or two bytes
// (lengths and deltas of records up to 8 KiB), so those are inline.
[[gnu::noinline]] bool read_uvarint_slow(const uint8_t*& p, const uint8_t* end, int max_bytes, uint64_t& out) {
  uint64_t v = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (p == end) return false;
    const uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      out = v;
      return true;
    }
  }
  return false;
}

inline bool read_uvarint(const uint8_t*& p, const uint8_t* end, int max_bytes, uint64_t& out) {
  if (end - p >= 2) {
    const uint8_t b0 = p[0];
    if ((b0 & 0x80) == 0) {
      out = b0;
      p += 1;
      return true;
    }
    const uint8_t b1 = p[1];
    if ((b1 & 0x80) == 0) {
      out = static_cast<uint64_t>(b0 & 0x7f) | (static_cast<uint64_t>(b1) << 7);
      p += 2;
      return true;
    }
  }
  return read_uvarint_slow(p, end, max_bytes, out);
}

inline bool read_varint32(const uint8_t*& p, const uint8_t* end, int32_t& out) {
  uint64_t u;
  if (!read_uvarint(p, end, 5, u) || u > UINT32_MAX) return false;
  const auto w = static_cast<uint32_t>(u);
  out = static_cast<int32_t>((w >> 1) ^ (~(w & 1) + 1));
  return true;
}

inline bool read_varint64(const uint8_t*& p, const uint8_t* end, int64_t& out) {
  uint64_t u;
  if (!read_uvarint(p, end, 10, u)) return false;
  out = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

// A varint length (-1 = null when nullable) and that many bytes.
inline bool skip_sized(const uint8_t*& p, const uint8_t* end, bool nullable) {
  int32_t len;
  if (!read_varint32(p, end, len)) return false;
  if (len < 0) return nullable && len == -1;
  if (static_cast<size_t>(len) > static_cast<size_t>(end - p)) return false;
  p += len;
  return true;
}

Status bad_record(int32_t index, const char* what) {
  return Status::error("record " + std::to_string(index) + ": " + what, kInvalidRecord);
}

}  // namespace

Status walk_records(ValidatedBatch& vb, ByteSpan section) {
  const BatchHeader& h = vb.header;
  const uint8_t* p = section.data();
  const uint8_t* const end = p + section.size();
  const int32_t count = h.records_count;
  bool first = true;
  for (int32_t i = 0; i < count; ++i) {
    if (p == end) return bad_record(i, "missing: the batch declares more records");
    int32_t length;
    if (!read_varint32(p, end, length)) return bad_record(i, "bad length varint");
    if (length < static_cast<int32_t>(kMinRecordSize - 1) || static_cast<size_t>(length) > static_cast<size_t>(end - p))
      return bad_record(i, "length out of bounds");
    const uint8_t* const rend = p + length;
    ++p;  // attributes
    int64_t ts_delta;
    int32_t offset_delta;
    if (!read_varint64(p, rend, ts_delta) || !read_varint32(p, rend, offset_delta))
      return bad_record(i, "truncated record prefix");
    // Offsets are assigned by rewriting base_offset only.
    if (offset_delta != i) return bad_record(i, "offset delta out of sequence");
    if (!skip_sized(p, rend, true)) return bad_record(i, "bad key length");
    if (!skip_sized(p, rend, true)) return bad_record(i, "bad value length");
    int32_t headers;
    if (!read_varint32(p, rend, headers) || headers < 0) return bad_record(i, "bad header count");
    for (int32_t k = 0; k < headers; ++k) {
      // Header keys are never null; values may be.
      if (!skip_sized(p, rend, false)) return bad_record(i, "bad header key length");
      if (!skip_sized(p, rend, true)) return bad_record(i, "bad header value length");
    }
    if (p != rend) return bad_record(i, "bytes left inside the record");
    const int64_t ts =
        static_cast<int64_t>(static_cast<uint64_t>(h.base_timestamp) + static_cast<uint64_t>(ts_delta));
    if (first || ts > vb.max_timestamp) {
      vb.max_timestamp = ts;
      vb.max_timestamp_delta = i;
      first = false;
    }
  }
  if (p != end) return bad_record(count, "bytes trail the declared records");
  return Status::ok();
}

Result<ValidatedBatches> validate_produce_records(ByteSpan records,
                                                  const ProduceValidationOptions& options) {
  ValidatedBatches out;
  if (records.empty()) {
    return Status::error("produce request carries no record batch", kInvalidRecord);
  }
  Bytes scratch;
  size_t pos = 0;
  while (pos < records.size()) {
    const size_t index = out.batches.size();
    ByteSpan rest = records.subspan(pos);
    if (index > 0 && options.single_batch) {
      return at_batch(index, pos, "only one record batch per partition is allowed",
                      kInvalidRecord);
    }
    // The magic byte sits at the same place in v0/v1 message sets, which
    // Kafka refuses with a dedicated code rather than as corruption.
    if (rest.size() > kMagicPos && (rest[kMagicPos] == 0 || rest[kMagicPos] == 1)) {
      return at_batch(index, pos,
                      "message format v" + std::to_string(rest[kMagicPos]) + " is not supported",
                      kUnsupportedForMessageFormat);
    }
    auto hr = validate_batch(rest);
    if (!hr) return at_batch(index, pos, hr.status().message(), hr.status().kafka_code());

    ValidatedBatch vb;
    vb.header = hr.value();
    vb.position = pos;
    vb.size = vb.header.total_size();
    vb.first_relative_offset = out.record_count;
    vb.max_timestamp = vb.header.max_timestamp;
    vb.max_timestamp_delta = vb.header.last_offset_delta;

    if (vb.size > options.max_message_bytes) {
      return at_batch(index, pos,
                      "batch of " + std::to_string(vb.size) + " bytes exceeds max.message.bytes " +
                          std::to_string(options.max_message_bytes),
                      kMessageTooLarge);
    }
    Status s = check_client_header(vb.header, index, pos);
    if (!s) return s;
    if (options.records == RecordCheck::kWalk && vb.header.compression() == Compression::kNone) {
      s = walk_records(vb, rest.subspan(kHeaderSize, vb.size - kHeaderSize));
      if (!s) return at_batch(index, pos, s.message(), s.kafka_code());
    } else if (options.records != RecordCheck::kHeader) {
      s = check_records(vb, rest.first(vb.size), scratch, options.max_uncompressed_bytes, index);
      if (!s) return s;
    }

    const int64_t relative = vb.first_relative_offset + vb.max_timestamp_delta;
    if (out.offset_of_max_timestamp < 0 || vb.max_timestamp > out.max_timestamp) {
      out.max_timestamp = vb.max_timestamp;
      out.offset_of_max_timestamp = relative;
    }
    out.record_count += static_cast<int64_t>(vb.header.last_offset_delta) + 1;
    pos += vb.size;
    out.batches.push_back(vb);
  }
  return out;
}

}  // namespace spool::record
