// Writing transaction markers to local partitions: the body of the
// WriteTxnMarkers API (key 27), callable in-process by the transaction
// coordinator's marker sender (one node) and by the API handler (cluster
// mode sends the same request over the wire).
//
// For each marker and partition: append a control batch (COMMIT/ABORT, the
// producer's id and epoch, coordinator epoch) through the partition's log so
// its producer state ends the transaction and the last stable offset moves;
// an abort also records the aborted range in the segment's .txnindex. Markers
// on __consumer_offsets partitions also complete the group coordinator's
// pending transactional offset commits for that producer. `done` runs once,
// after every marker is durable or failed, with per-partition errors
// (UNKNOWN_TOPIC_OR_PARTITION, INVALID_PRODUCER_EPOCH, KAFKA_STORAGE_ERROR...).
// Thread-safe; `done` may run on the flusher thread.
#pragma once

#include <functional>

#include "broker/broker_context.h"
#include "protocol/write_txn_markers_request.h"
#include "protocol/write_txn_markers_response.h"

namespace spool::broker {

void write_txn_markers(BrokerContext& b, const protocol::WriteTxnMarkersRequest& req,
                       std::function<void(protocol::WriteTxnMarkersResponse)> done);

}  // namespace spool::broker
