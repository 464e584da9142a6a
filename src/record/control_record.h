// Control records: the transaction markers (COMMIT / ABORT) a transaction
// coordinator asks partition leaders to append. A control batch is
// transactional + control, uncompressed, base_sequence -1, and holds one
// record whose key is {int16 version = 0, int16 type} and whose value is
// {int16 version = 0, int32 coordinator_epoch}.
// Building copies into a new buffer; parsing reads a decoded Record's views.
// Malformed markers fail with INVALID_RECORD. Pure; thread-safe.
#pragma once

#include <cstdint>

#include "record/record.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::record {

enum class ControlType : int16_t { kAbort = 0, kCommit = 1 };

struct ControlMarker {
  ControlType type = ControlType::kAbort;
  int32_t coordinator_epoch = 0;
};

struct ControlBatchOptions {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int64_t timestamp = 0;
  int64_t base_offset = 0;
  int32_t partition_leader_epoch = -1;
};

Result<Bytes> build_control_batch(const ControlBatchOptions& options, const ControlMarker& marker);

// Reads the control type from a control record's key (other types than
// ABORT/COMMIT are refused) and, for those, the marker value.
Result<ControlMarker> parse_control_record(const Record& record);

}  // namespace spool::record
