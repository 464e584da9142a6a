// BrokerTxnMarkerSender: the transaction coordinator's TxnMarkerSender.
//   * One node: an in-process call of write_txn_markers (broker/txn_markers.h),
//     the body of the WriteTxnMarkers API.
//   * Cluster mode (Kafka's TransactionMarkerChannelManager): the partitions
//     are grouped by their leader in the metadata cache; this broker's own go
//     through the same in-process call, the others' as one WriteTxnMarkers
//     (v1) per leader over the inter-broker listener, on a NetworkClient of
//     the sender's own (a marker's answer waits for acks=all on its leader,
//     so it must not queue behind or ahead of controller traffic). Per
//     partition: no leader, no endpoint or an empty cache answer
//     NOT_LEADER_OR_FOLLOWER / LEADER_NOT_AVAILABLE and a failed request its
//     REQUEST_TIMED_OUT / NETWORK_EXCEPTION, all of which the coordinator
//     retries (it looks the leader up again each time); a partition the cache
//     does not know answers UNKNOWN_TOPIC_OR_PARTITION (deleted: settled, as
//     in Kafka).
// Also ProducerIdAdapter: the coordinator's ProducerIdSource over the
// broker's ProducerIdManager (shared with idempotent producers).
// Threading: thread-safe; `done` runs once, on whichever thread answered last
// (a flusher, the purgatory reaper or the network client's I/O thread).
// Lifetime: the BrokerContext must outlive the sender; shutdown() (also run
// by the destructor) fails remote sends still in flight.
#pragma once

#include <memory>

#include "broker/broker_context.h"
#include "broker/producer_id_manager.h"
#include "client/network_client.h"
#include "coordinator/txn/txn_ports.h"

namespace spool::broker {

class BrokerTxnMarkerSender : public coordinator::TxnMarkerSender {
 public:
  // `cluster`: route by leader (ctx.metadata is read at each send, so it may
  // be wired after construction).
  BrokerTxnMarkerSender(BrokerContext& ctx, bool cluster);
  ~BrokerTxnMarkerSender() override;
  void send(coordinator::TxnMarker marker, std::function<void(coordinator::TxnMarkerResult)> done) override;
  void shutdown();

 private:
  BrokerContext& ctx_;
  std::unique_ptr<client::NetworkClient> network_;  // cluster mode only
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
