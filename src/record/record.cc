#include "record/record.h"

#include <string>

#include "record/compression.h"
#include "record/error_codes.h"

namespace spool::record {
namespace {

Status invalid(int32_t index, const std::string& what) {
  return Status::error("record " + std::to_string(index) + ": " + what, kInvalidRecord);
}

std::string_view as_string_view(ByteSpan s) {
  return {reinterpret_cast<const char*>(s.data()), s.size()};
}

// Reads a varint length followed by that many bytes. -1 means null; any other
// negative length, or one past the end, is malformed (returns false).
bool read_nullable(ByteReader& r, std::optional<ByteSpan>& out) {
  const int32_t len = r.varint32();
  if (!r.ok() || len < -1) return false;
  if (len == -1) {
    out.reset();
    return true;
  }
  if (static_cast<size_t>(len) > r.remaining()) return false;
  out = r.take(static_cast<size_t>(len));
  return r.ok();
}

}  // namespace

RecordReader::RecordReader(ByteSpan section, int32_t count, int32_t last_offset_delta)
    : r_(section), count_(count), last_offset_delta_(last_offset_delta) {}

Result<bool> RecordReader::next(Record& out) {
  if (read_ >= count_) {
    if (r_.remaining() != 0) {
      return Status::error(std::to_string(r_.remaining()) + " bytes trail the " +
                               std::to_string(count_) + " records of the batch",
                           kInvalidRecord);
    }
    return false;
  }
  const int32_t index = read_;
  if (r_.remaining() == 0) {
    return invalid(index, "missing: batch declares " + std::to_string(count_) + " records");
  }
  const int32_t length = r_.varint32();
  if (!r_.ok()) return invalid(index, "bad length varint");
  if (length < static_cast<int32_t>(kMinRecordSize - 1) ||
      static_cast<size_t>(length) > r_.remaining()) {
    return invalid(index, "length " + std::to_string(length) + " out of bounds (" +
                              std::to_string(r_.remaining()) + " bytes left)");
  }
  ByteReader body(r_.take(static_cast<size_t>(length)));

  out.attributes = body.i8();
  out.timestamp_delta = body.varint64();
  out.offset_delta = body.varint32();
  if (!body.ok()) return invalid(index, "truncated record prefix");
  if (out.offset_delta < 0 || out.offset_delta <= prev_offset_delta_ ||
      out.offset_delta > last_offset_delta_) {
    return invalid(index, "offset delta " + std::to_string(out.offset_delta) +
                              " out of order or beyond last_offset_delta " +
                              std::to_string(last_offset_delta_));
  }
  if (!read_nullable(body, out.key)) return invalid(index, "bad key length");
  if (!read_nullable(body, out.value)) return invalid(index, "bad value length");

  const int32_t header_count = body.varint32();
  if (!body.ok() || header_count < 0) return invalid(index, "bad header count");
  // Each header takes at least two bytes; a larger count cannot be real, and
  // checking first keeps the reserve() below bounded by the input.
  if (static_cast<size_t>(header_count) > body.remaining() / 2) {
    return invalid(index, "header count " + std::to_string(header_count) + " exceeds record size");
  }
  out.headers.clear();
  out.headers.reserve(static_cast<size_t>(header_count));
  for (int32_t i = 0; i < header_count; ++i) {
    const int32_t key_len = body.varint32();
    if (!body.ok() || key_len < 0 || static_cast<size_t>(key_len) > body.remaining()) {
      return invalid(index, "header " + std::to_string(i) + ": bad key length");
    }
    Header h;
    h.key = as_string_view(body.take(static_cast<size_t>(key_len)));
    std::optional<ByteSpan> value;
    if (!read_nullable(body, value)) {
      return invalid(index, "header " + std::to_string(i) + ": bad value length");
    }
    if (value) h.value = as_string_view(*value);
    out.headers.push_back(h);
  }
  if (body.remaining() != 0) {
    return invalid(index, std::to_string(body.remaining()) + " bytes left inside the record");
  }
  prev_offset_delta_ = out.offset_delta;
  ++read_;
  return true;
}

Result<ByteSpan> records_section(const BatchHeader& header, ByteSpan batch, Bytes& scratch,
                                 size_t max_uncompressed) {
  if (batch.size() < kHeaderSize || header.batch_length < 0 ||
      header.total_size() > batch.size() || header.total_size() < kHeaderSize) {
    return Status::error("record batch shorter than its header declares", kCorruptMessage);
  }
  ByteSpan raw = batch.subspan(kHeaderSize, header.total_size() - kHeaderSize);
  // An emptied (compacted) batch has no records section to decompress.
  if (header.compression() == Compression::kNone || (raw.empty() && header.records_count == 0)) {
    return raw;
  }
  Status s = decompress_into(header.compression(), raw, max_uncompressed, scratch);
  if (!s) return s;
  return ByteSpan(scratch);
}

Result<std::vector<Record>> decode_records(const BatchHeader& header, ByteSpan batch,
                                           Bytes& scratch, size_t max_uncompressed) {
  auto section = records_section(header, batch, scratch, max_uncompressed);
  if (!section) return section.status();
  if (header.records_count < 0) {
    return Status::error("negative records_count", kInvalidRecord);
  }
  if (static_cast<size_t>(header.records_count) > section->size() / kMinRecordSize) {
    return Status::error("records_count " + std::to_string(header.records_count) +
                             " cannot fit in " + std::to_string(section->size()) + " bytes",
                         kInvalidRecord);
  }
  std::vector<Record> records;
  records.reserve(static_cast<size_t>(header.records_count));
  RecordReader reader(*section, header.records_count, header.last_offset_delta);
  for (;;) {
    Record rec;
    auto more = reader.next(rec);
    if (!more) return more.status();
    if (!*more) break;
    records.push_back(std::move(rec));
  }
  return records;
}

}  // namespace spool::record
