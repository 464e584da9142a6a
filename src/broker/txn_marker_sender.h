// BrokerTxnMarkerSender: the transaction coordinator's TxnMarkerSender on one
// node — an in-process call of write_txn_markers (broker/txn_markers.h), the
// body of the WriteTxnMarkers API, so cluster mode only swaps the transport.
// Also ProducerIdAdapter: the coordinator's ProducerIdSource over the
// broker's persisted ProducerIdManager (shared with idempotent producers).
// Threading: thread-safe; `done` runs wherever write_txn_markers answers.
// Lifetime: the BrokerContext must outlive every send.
#pragma once

#include "broker/broker_context.h"
#include "broker/producer_id_manager.h"
#include "coordinator/txn/txn_ports.h"

namespace spool::broker {

class BrokerTxnMarkerSender : public coordinator::TxnMarkerSender {
 public:
  explicit BrokerTxnMarkerSender(BrokerContext& ctx) : ctx_(ctx) {}
  void send(coordinator::TxnMarker marker, std::function<void(coordinator::TxnMarkerResult)> done) override;

 private:
  BrokerContext& ctx_;
};

class ProducerIdAdapter : public coordinator::ProducerIdSource {
 public:
  explicit ProducerIdAdapter(ProducerIdManager* ids) : ids_(ids) {}
  // KAFKA_STORAGE_ERROR when the block cannot be persisted;
  // COORDINATOR_NOT_AVAILABLE without a manager (hand-wired tests).
  Result<int64_t> next_producer_id() override;

 private:
  ProducerIdManager* ids_;
};

}  // namespace spool::broker
