// Building record batch v2 bytes: used by tests, the CLI producer, the native
// client and the broker's own writes (control markers, coordinator records).
//
// The builder copies everything it is given into the returned buffer; inputs
// only need to live for the call. Failures (no records, bad offset deltas,
// sizes beyond int32, compression errors) come back as Status with
// INVALID_RECORD or CORRUPT_MESSAGE. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "record/batch_header.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::record {

struct BuildHeader {
  std::string key;
  std::optional<Bytes> value;  // nullopt = null
};

struct BuildRecord {
  std::optional<Bytes> key;    // nullopt = null key
  std::optional<Bytes> value;  // nullopt = null value (tombstone)
  std::vector<BuildHeader> headers;
  int64_t timestamp = 0;       // absolute ms; stored as a delta to the first record's
  // Offset delta inside the batch; unset = the record's index. Explicit values
  // must be strictly increasing (compaction output has gaps).
  std::optional<int32_t> offset_delta;

  static BuildRecord of(std::string_view key, std::string_view value, int64_t ts = 0);
};

struct BatchOptions {
  int64_t base_offset = 0;
  int32_t partition_leader_epoch = -1;
  Compression compression = Compression::kNone;
  int compression_level = -1;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  bool transactional = false;
  bool control = false;
  bool log_append_time = false;  // sets the timestamp-type bit
  // Overrides last_offset_delta (must be >= the last record's delta), for
  // batches whose offset range outlives some of their records.
  std::optional<int32_t> last_offset_delta;
};

// Builds one complete batch (header + records) with a valid CRC.
Result<Bytes> build_batch(const BatchOptions& options, std::span<const BuildRecord> records);

// Encodes records (no batch header) exactly as they appear in an
// uncompressed records section; base_timestamp is subtracted from each
// record's timestamp.
Result<Bytes> encode_records(std::span<const BuildRecord> records, int64_t base_timestamp);

// Recomputes and stores the CRC of a batch of `len` bytes (its total size).
// No-op when len is shorter than the header.
void update_crc(uint8_t* batch, size_t len);

// Switches a batch to LogAppendTime: sets the timestamp-type attribute bit and
// max_timestamp = ts, then recomputes the CRC. `len` is the batch's total
// size; no-op when shorter than the header.
void set_log_append_time(uint8_t* batch, size_t len, int64_t ts);

}  // namespace spool::record
