#include "broker/txn_marker_sender.h"

#include <map>

#include "broker/txn_markers.h"
#include "protocol/write_txn_markers_request.h"
#include "protocol/write_txn_markers_response.h"

namespace spool::broker {

using protocol::ErrorCode;

void BrokerTxnMarkerSender::send(coordinator::TxnMarker marker,
                                 std::function<void(coordinator::TxnMarkerResult)> done) {
  protocol::WriteTxnMarkersRequest req;
  protocol::WriteTxnMarkersRequest::WritableTxnMarker m;
  m.producer_id = marker.producer_id;
  m.producer_epoch = marker.producer_epoch;
  m.transaction_result = marker.commit;
  m.coordinator_epoch = marker.coordinator_epoch;
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& tp : marker.partitions) by_topic[tp.topic].push_back(tp.partition);
  for (auto& [name, parts] : by_topic) {
    protocol::WriteTxnMarkersRequest::WritableTxnMarker::WritableTxnMarkerTopic t;
    t.name = name;
    t.partition_indexes = std::move(parts);
    m.topics.push_back(std::move(t));
  }
  req.markers.push_back(std::move(m));
  write_txn_markers(ctx_, req, [done = std::move(done)](protocol::WriteTxnMarkersResponse resp) {
    coordinator::TxnMarkerResult result;
    for (const auto& mr : resp.markers) {
      for (const auto& t : mr.topics) {
        for (const auto& p : t.partitions) {
          result.emplace_back(coordinator::TxnPartition{t.name, p.partition_index},
                              p.error_code);
        }
      }
    }
    done(std::move(result));
  });
}

Result<int64_t> ProducerIdAdapter::next_producer_id() {
  if (ids_ == nullptr)
    return Status::error("no producer id manager", static_cast<int16_t>(ErrorCode::kCoordinatorNotAvailable));
  auto id = ids_->next_id();
  if (!id) return Status::error(id.status().message(), static_cast<int16_t>(ErrorCode::kKafkaStorageError));
  return *id;
}

}  // namespace spool::broker
