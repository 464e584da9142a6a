// WriteTxnMarkers (key 27, v1-2): the transaction coordinator's request to a
// partition leader. On one node the coordinator calls write_txn_markers
// in-process; this handler serves the same body over the wire (cluster mode,
// tools and tests). The answer comes once every marker is durable or failed.
// v0 is not served: Kafka removed it in 4.0 (v1, flexible, is the baseline).
// v2 (KIP-1228) gives each marker its TransactionVersion: a version-2
// marker must carry an epoch above the producer's (see txn_markers.cc).
#include "broker/handlers/handlers.h"
#include "broker/txn_markers.h"
#include "protocol/write_txn_markers_request.h"
#include "protocol/write_txn_markers_response.h"

namespace spool::broker {

void handle_write_txn_markers(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::WriteTxnMarkersRequest req;
  if (!decode_or_close(ctx, body, req, "WriteTxnMarkers")) return;
  write_txn_markers(b, req, [ctx](protocol::WriteTxnMarkersResponse resp) { ctx.respond(resp); });
}

}  // namespace spool::broker
