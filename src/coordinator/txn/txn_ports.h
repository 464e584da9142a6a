// The transaction coordinator's ports to the rest of the broker, so that
// src/coordinator/txn depends on neither src/broker nor src/storage.
//
//   * TxnMarkerSender: writes COMMIT/ABORT control markers to the partitions
//     of a transaction. On one node the broker implements it with an
//     in-process call into the same code that serves the WriteTxnMarkers API
//     (broker/txn_markers.h), so cluster mode only swaps the transport.
//   * ProducerIdSource: hands out producer ids unique across restarts (the
//     broker's persisted block allocator, shared with idempotent producers).
//   * The state log is a coordinator::OffsetsLog over __transaction_state (the
//     same "compacted internal topic" interface the group coordinator uses).
//
// Threading: implementations are thread-safe; `done` may run on any thread,
// must not block and must not call back into the coordinator synchronously.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "protocol/error_code.h"
#include "util/status.h"
#include "util/topic_partition.h"

namespace spool::coordinator {

// A partition of a transaction: the one partition value type.
using TxnPartition = spool::TopicPartition;

struct TxnMarker {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t coordinator_epoch = 0;
  bool commit = false;  // false = abort
  std::vector<TxnPartition> partitions;
};

using TxnMarkerResult = std::vector<std::pair<TxnPartition, protocol::ErrorCode>>;

class TxnMarkerSender {
 public:
  virtual ~TxnMarkerSender() = default;
  // Writes the marker to every partition and answers once each is durable or
  // failed (per-partition error; UNKNOWN_TOPIC_OR_PARTITION for a partition
  // that no longer exists counts as done, as in Kafka).
  virtual void send(TxnMarker marker, std::function<void(TxnMarkerResult)> done) = 0;
};

class ProducerIdSource {
 public:
  virtual ~ProducerIdSource() = default;
  virtual Result<int64_t> next_producer_id() = 0;
};

}  // namespace spool::coordinator
