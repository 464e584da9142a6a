// AddPartitionsToTxn v0-2. Every partition must exist on this broker: if one
// does not, it gets UNKNOWN_TOPIC_OR_PARTITION and every other one
// OPERATION_NOT_ATTEMPTED, without touching the transaction (Kafka's
// behaviour). Otherwise the coordinator's one error applies to all of them,
// answered once the new state is durable.
#include <memory>

#include "broker/handlers/handlers.h"
#include "broker/handlers/txn_common.h"
#include "broker/txn_service.h"
#include "protocol/add_partitions_to_txn_request.h"
#include "protocol/add_partitions_to_txn_response.h"

namespace spool::broker {

using protocol::ErrorCode;

void handle_add_partitions_to_txn(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::AddPartitionsToTxnRequest req;
  if (!decode_or_close(ctx, body, req, "AddPartitionsToTxn")) return;
  const int16_t v = ctx.version();
  // One answer shape: every requested partition with an error.
  auto answer = [ctx, topics = req.topics, v](auto error_for) {
    protocol::AddPartitionsToTxnResponse resp;
    for (const auto& t : topics) {
      auto& rt = resp.results.emplace_back();
      rt.name = t.name;
      for (int32_t p : t.partitions) {
        auto& rp = rt.results.emplace_back();
        rp.partition_index = p;
        rp.error_code = txn_error(error_for(t.name, p), v, 2);
      }
    }
    ctx.respond(resp);
  };
  if (b.txns == nullptr) return answer([](const std::string&, int32_t) { return ErrorCode::kCoordinatorNotAvailable; });
  if (req.transactional_id.empty()) return answer([](const std::string&, int32_t) { return ErrorCode::kInvalidRequest; });
  std::vector<coordinator::TxnPartition> partitions;
  bool unknown = false;
  for (const auto& t : req.topics) {
    for (int32_t p : t.partitions) {
      if (!b.replicas.partition(t.name, p)) unknown = true;
      partitions.push_back(coordinator::TxnPartition{t.name, p});
    }
  }
  if (unknown) {
    auto& replicas = b.replicas;
    return answer([&replicas](const std::string& topic, int32_t p) {
      return replicas.partition(topic, p) ? ErrorCode::kOperationNotAttempted : ErrorCode::kUnknownTopicOrPartition;
    });
  }
  b.txns->coordinator().add_partitions(req.transactional_id, req.producer_id, req.producer_epoch,
                                       std::move(partitions), [answer](ErrorCode e) {
                                         answer([e](const std::string&, int32_t) { return e; });
                                       });
}

}  // namespace spool::broker
