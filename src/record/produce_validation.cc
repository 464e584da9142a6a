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

}  // namespace

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
    if (options.deep) {
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
