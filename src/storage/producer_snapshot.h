// Producer-state snapshots: `<log dir>/<20-digit offset>.snapshot`, the
// producer state of a partition as of that offset (every batch below it
// applied). Written on segment roll and at clean shutdown; recovery loads
// the newest valid one and replays the batches after it.
//
// File format (Spool's own, all integers big-endian):
//   magic      4 bytes  "SPPS"
//   version    int16    1
//   crc        uint32   CRC-32C of every byte after this field
//   offset     int64    the snapshot offset (must equal the file name's)
//   count      int32    number of producer entries
//   entries:   producer_id int64, epoch int16, coordinator_epoch int32,
//              current_txn_first_offset int64, last_timestamp int64,
//              batch_count int8 (0..5), then per batch: first_seq int32,
//              last_seq int32, first_offset int64, last_offset int64,
//              timestamp int64
// A file that is short, too long, has another magic/version, a bad CRC or
// impossible values is refused as a whole (never partially loaded).
// Stateless functions; thread-safe. Errors are Status values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/producer_state.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::storage {

inline constexpr const char* kSnapshotSuffix = ".snapshot";

Bytes encode_producer_snapshot(int64_t offset, const std::vector<ProducerEntry>& entries);
// Decodes and checks a snapshot; `offset` receives the snapshot offset.
Result<std::vector<ProducerEntry>> decode_producer_snapshot(ByteSpan data, int64_t& offset);

std::string producer_snapshot_path(const std::string& dir, int64_t offset);
// Written to a temp file and renamed over the final name (not fsynced: see .cc).
Status write_producer_snapshot(const std::string& dir, int64_t offset, const std::vector<ProducerEntry>& entries);
Result<std::vector<ProducerEntry>> read_producer_snapshot(const std::string& dir, int64_t offset);
// Snapshot offsets present in `dir`, ascending.
std::vector<int64_t> list_producer_snapshots(const std::string& dir);
// Removes snapshots with offset < `below` / > `above`. Missing files are fine.
void delete_producer_snapshots_below(const std::string& dir, int64_t below);
void delete_producer_snapshots_above(const std::string& dir, int64_t above);
void delete_producer_snapshot(const std::string& dir, int64_t offset);

}  // namespace spool::storage
