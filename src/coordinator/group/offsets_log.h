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
//
// Transactions (TxnOffsetCommit): append_transactional writes the records as
// a TRANSACTIONAL batch of the producer, through the partition's producer
// state (so a fenced epoch fails with INVALID_PRODUCER_EPOCH and the
// partition's last stable offset waits for the marker). Such records count
// only once a COMMIT marker of that producer follows them in the partition;
// replay() reports records with their batch's producer and the markers, in
// log order, so loading can tell. Implementations that predate transactions
// keep working: the defaults refuse transactional appends and replay plain
// records only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "protocol/error_code.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::coordinator {

struct LogRecord {
  Bytes key;
  std::optional<Bytes> value;  // nullopt = tombstone
};

// The producer a transactional append belongs to.
struct TxnProducer {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

// One step of a replay, in log order.
struct ReplayEntry {
  enum class Kind { kRecord, kCommitMarker, kAbortMarker };
  Kind kind = Kind::kRecord;
  int64_t producer_id = -1;    // the batch's producer id (-1: none)
  bool transactional = false;  // kRecord: the batch is transactional
  LogRecord record;            // kRecord only
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

  // Appends `records` to `partition` as one transactional batch of
  // `producer`; done(status) once durable or failed. Default: refused
  // (UNSUPPORTED_VERSION), for logs without producer state.
  virtual void append_transactional(int32_t partition, const TxnProducer& producer, std::vector<LogRecord> records,
                                    std::function<void(Status)> done);
  // Like read_all, but also reports each record's producer and every
  // transaction marker (control record). Default: read_all's records as
  // non-transactional entries.
  virtual Status replay(int32_t partition, const std::function<void(const ReplayEntry&)>& visit);
};

inline void OffsetsLog::append_transactional(int32_t, const TxnProducer&, std::vector<LogRecord>,
                                             std::function<void(Status)> done) {
  done(Status::error("this offsets log takes no transactional appends",
                     static_cast<int16_t>(protocol::ErrorCode::kUnsupportedVersion)));
}

inline Status OffsetsLog::replay(int32_t partition, const std::function<void(const ReplayEntry&)>& visit) {
  return read_all(partition, [&visit](const LogRecord& r) {
    ReplayEntry e;
    e.record = r;
    visit(e);
  });
}

}  // namespace spool::coordinator
