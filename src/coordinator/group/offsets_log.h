// OffsetsLog: how the group coordinator reaches its compacted topic
// (__consumer_offsets) without depending on the broker module.
//
// The broker implements it over the topic's partitions (append as one record
// batch, answer once durable); unit tests implement it in memory. Records are
// opaque key/value byte strings here; their format is group_records.h.
// Threading: every method may be called from any thread; `done` may run on
// any thread (the flusher's, or the caller's) and must not block. The
// coordinator calls append() while holding a group's lock (so the records of
// one group reach the log in the order the group changed), and `done` takes
// that lock: an implementation must not run `done` while holding a lock that
// append() also takes (running it inline on the caller's thread is fine).
// Failure: append reports a Status whose kafka_code() is what the coordinator
// should answer (e.g. NOT_ENOUGH_REPLICAS, KAFKA_STORAGE_ERROR, or
// RECORD_LIST_TOO_LARGE); read_all reports I/O errors as a Status.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "util/bytes.h"
#include "util/status.h"

namespace spool::coordinator {

struct LogRecord {
  Bytes key;
  std::optional<Bytes> value;  // nullopt = tombstone
};

class OffsetsLog {
 public:
  virtual ~OffsetsLog() = default;
  // Number of partitions of the topic (offsets.topic.num.partitions when it
  // was created).
  virtual int32_t partition_count() const = 0;
  // Appends `records` to `partition` as one batch (all or nothing, timestamps
  // = now) and calls done(status) once they are durable (or failed).
  virtual void append(int32_t partition, std::vector<LogRecord> records, std::function<void(Status)> done) = 0;
  // Reads partition from its log start to its current end in offset order,
  // calling visit for every record (control records skipped). Used when
  // loading; returns the first I/O or decoding error.
  virtual Status read_all(int32_t partition, const std::function<void(const LogRecord&)>& visit) = 0;
};

}  // namespace spool::coordinator
