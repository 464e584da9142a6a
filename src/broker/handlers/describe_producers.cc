// DescribeProducers (key 61, v0, Kafka 4.4's newest): the producer state entries of each
// requested partition (what Kafka's ProducerStateManager holds: epoch, last
// sequence and timestamp, coordinator epoch, open transaction's first
// offset). An unknown partition answers UNKNOWN_TOPIC_OR_PARTITION.
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/partition.h"
#include "broker/replica_manager.h"
#include "protocol/describe_producers_request.h"
#include "protocol/describe_producers_response.h"
#include "protocol/error_code.h"

namespace spool::broker {

using protocol::ErrorCode;

void handle_describe_producers(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DescribeProducersRequest req;
  if (!decode_or_close(ctx, body, req, "DescribeProducers")) return;
  protocol::DescribeProducersResponse resp;
  for (const auto& t : req.topics) {
    auto& tr = resp.topics.emplace_back();
    tr.name = t.name;
    const bool permitted = topic_allowed(b, ctx, security::AclOperation::kRead, t.name);  // Kafka's check
    for (int32_t index : t.partition_indexes) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = index;
      if (!permitted) {
        pr.error_code = ErrorCode::kTopicAuthorizationFailed;
        continue;
      }
      auto partition = b.replicas.partition(t.name, index);
      if (!partition) {
        pr.error_code = ErrorCode::kUnknownTopicOrPartition;
        pr.error_message = "unknown topic or partition " + t.name + "-" + std::to_string(index);
        continue;
      }
      pr.error_code = ErrorCode::kNone;
      for (const auto& e : partition->log().producer_entries()) {
        auto& ps = pr.active_producers.emplace_back();
        ps.producer_id = e.producer_id;
        ps.producer_epoch = e.epoch;
        ps.last_sequence = e.last_seq();
        ps.last_timestamp = e.last_timestamp;
        ps.coordinator_epoch = e.coordinator_epoch;
        ps.current_txn_start_offset = e.current_txn_first_offset;
      }
    }
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
