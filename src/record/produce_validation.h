// Validation of the records a client sends in a Produce request, for one
// partition. The blob may hold several v2 batches back to back. Nothing is
// copied or modified: the result says where each batch sits so the broker can
// assign offsets by rewriting base_offset (and the leader epoch) in place,
// which the CRC does not cover.
//
// Failure codes (Status::kafka_code()):
//   CORRUPT_MESSAGE (2)             - truncated batch, bad length, CRC mismatch,
//                                     unknown magic or codec, undecodable
//                                     compressed data, decompression bomb
//   UNSUPPORTED_FOR_MESSAGE_FORMAT (43) - magic 0/1 message sets
//   MESSAGE_TOO_LARGE (10)          - a batch larger than max_message_bytes
//   INVALID_RECORD (87)             - empty blob, records_count != last_offset_delta+1
//                                     or <= 0, control batch from a client,
//                                     producer id without a sequence,
//                                     transactional batch without producer id,
//                                     malformed records (walk and deep modes)
//
// How much of the records section is checked (RecordCheck):
//  - kDeep decodes every record (decompressing when needed), as Kafka does.
//    Compressed batches always get it: they are decompressed anyway.
//  - kWalk, for uncompressed batches, makes one pass over the records
//    without materialising them: every varint and length (record length,
//    key, value, header count, header keys/values) is bounded and the
//    lengths must add up exactly to the record and to the section; offset
//    deltas must be 0..n-1; the record timestamps give max_timestamp. No
//    Record/Header objects, no allocation. It accepts exactly what kDeep
//    accepts: the CRC covers the records, but a client computes it over
//    whatever it sends, so a CRC-valid batch can still hold a key length
//    past the record's end; refusing it here keeps every stored record
//    decodable by any reader (consumers, the cleaner, timestamp lookups).
//  - kHeader checks the header and CRC only (tools, tests).
// Safe for any input bytes: no UB, allocations bounded by the input size and
// max_uncompressed_bytes. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "record/batch_header.h"
#include "record/record.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::record {

enum class RecordCheck : uint8_t { kHeader, kWalk, kDeep };

struct ProduceValidationOptions {
  size_t max_message_bytes = 1048588;  // Kafka's max.message.bytes default
  // For uncompressed batches; compressed ones get kDeep unless kHeader.
  RecordCheck records = RecordCheck::kDeep;
  // Kafka allows exactly one batch of magic v2 per partition in a Produce
  // (INVALID_RECORD otherwise); the broker's append turns this on, tools
  // and tests of multi-batch blobs leave it off.
  bool single_batch = false;
  size_t max_uncompressed_bytes = kDefaultMaxUncompressedBytes;
};

struct ValidatedBatch {
  BatchHeader header;
  size_t position = 0;                // byte offset of the batch within the blob
  size_t size = 0;                    // total bytes of the batch
  int64_t first_relative_offset = 0;  // records in the blob before this batch
  // Largest record timestamp and the offset delta of the first record that
  // has it. Computed from the records (kWalk, kDeep); with kHeader the header's
  // max_timestamp and last_offset_delta. Kafka rewrites a CreateTime header's
  // max_timestamp when it disagrees with the records.
  int64_t max_timestamp = -1;
  int32_t max_timestamp_delta = 0;
};

struct ValidatedBatches {
  std::vector<ValidatedBatch> batches;
  int64_t record_count = 0;  // offsets to assign = sum of last_offset_delta + 1
  int64_t max_timestamp = -1;
  // Offset (relative to the first offset assigned to the blob) of the record
  // holding max_timestamp, for ListOffsets' MAX_TIMESTAMP lookups.
  int64_t offset_of_max_timestamp = -1;
};

Result<ValidatedBatches> validate_produce_records(ByteSpan records,
                                                  const ProduceValidationOptions& options);

// deep=false is kHeader.
inline Result<ValidatedBatches> validate_produce_records(ByteSpan records,
                                                         size_t max_message_bytes,
                                                         bool deep = true) {
  ProduceValidationOptions o;
  o.max_message_bytes = max_message_bytes;
  o.records = deep ? RecordCheck::kDeep : RecordCheck::kHeader;
  return validate_produce_records(records, o);
}

// The kWalk pass over an uncompressed records section on its own (for
// tests and benchmarks): INVALID_RECORD on anything kDeep would refuse.
// Sets vb.max_timestamp / max_timestamp_delta from the records.
Status walk_records(ValidatedBatch& vb, ByteSpan section);

}  // namespace spool::record
