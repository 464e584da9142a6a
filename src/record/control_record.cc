#include "record/control_record.h"

#include <string>

#include "record/batch_builder.h"
#include "record/error_codes.h"

namespace spool::record {

Result<Bytes> build_control_batch(const ControlBatchOptions& options, const ControlMarker& marker) {
  ByteWriter key;
  key.i16(0);
  key.i16(static_cast<int16_t>(marker.type));
  ByteWriter value;
  value.i16(0);
  value.i32(marker.coordinator_epoch);

  BuildRecord rec;
  rec.key = key.take();
  rec.value = value.take();
  rec.timestamp = options.timestamp;

  BatchOptions b;
  b.base_offset = options.base_offset;
  b.partition_leader_epoch = options.partition_leader_epoch;
  b.producer_id = options.producer_id;
  b.producer_epoch = options.producer_epoch;
  b.base_sequence = -1;
  b.transactional = true;
  b.control = true;
  return build_batch(b, std::span<const BuildRecord>(&rec, 1));
}

Result<ControlMarker> parse_control_record(const Record& record) {
  if (!record.key || record.key->size() < 4) {
    return Status::error("control record key too short", kInvalidRecord);
  }
  ByteReader k(*record.key);
  const int16_t key_version = k.i16();
  const int16_t type = k.i16();
  if (key_version < 0) {
    return Status::error("control record key version " + std::to_string(key_version),
                         kInvalidRecord);
  }
  if (type != 0 && type != 1) {
    return Status::error("unknown control record type " + std::to_string(type), kInvalidRecord);
  }
  // Newer versions may append fields; the prefix is stable.
  if (!record.value || record.value->size() < 6) {
    return Status::error("transaction marker value too short", kInvalidRecord);
  }
  ByteReader v(*record.value);
  const int16_t value_version = v.i16();
  if (value_version < 0) {
    return Status::error("transaction marker version " + std::to_string(value_version),
                         kInvalidRecord);
  }
  ControlMarker m;
  m.type = static_cast<ControlType>(type);
  m.coordinator_epoch = v.i32();
  return m;
}

}  // namespace spool::record
