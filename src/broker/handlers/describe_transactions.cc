// DescribeTransactions v0 (KIP-664, Kafka 4.4's newest): per transactional id
// its state, timeout, start time, producer id/epoch and partitions;
// INVALID_REQUEST for an empty id, TRANSACTIONAL_ID_NOT_FOUND, NOT_COORDINATOR
// or COORDINATOR_LOAD_IN_PROGRESS per id. With an authorizer (Kafka's
// checks): an id without DESCRIBE answers TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
// and the partitions listed are those of topics the principal may DESCRIBE.
#include <map>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/txn_service.h"
#include "protocol/describe_transactions_request.h"
#include "protocol/describe_transactions_response.h"

namespace spool::broker {

using protocol::ErrorCode;

void handle_describe_transactions(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DescribeTransactionsRequest req;
  if (!decode_or_close(ctx, body, req, "DescribeTransactions")) return;
  protocol::DescribeTransactionsResponse resp;
  std::vector<coordinator::DescribedTxn> described;
  if (b.txns != nullptr) described = b.txns->coordinator().describe(req.transactional_ids);
  for (size_t i = 0; i < req.transactional_ids.size(); ++i) {
    auto& s = resp.transaction_states.emplace_back();
    s.transactional_id = req.transactional_ids[i];
    s.transaction_start_time_ms = -1;
    s.producer_id = -1;
    s.producer_epoch = -1;
    if (!allowed(b, ctx, security::AclOperation::kDescribe, security::ResourceType::kTransactionalId,
                 s.transactional_id)) {
      s.error_code = ErrorCode::kTransactionalIdAuthorizationFailed;
      continue;
    }
    if (b.txns == nullptr) {
      s.error_code = ErrorCode::kCoordinatorNotAvailable;
      continue;
    }
    const auto& d = described[i];
    s.error_code = d.error;
    if (d.error != ErrorCode::kNone) continue;
    s.transaction_state = d.state;
    s.transaction_timeout_ms = d.txn_timeout_ms;
    s.transaction_start_time_ms = d.txn_start_timestamp;
    s.producer_id = d.producer_id;
    s.producer_epoch = d.producer_epoch;
    std::map<std::string, std::vector<int32_t>> by_topic;
    for (const auto& tp : d.partitions) {
      if (topic_allowed(b, ctx, security::AclOperation::kDescribe, tp.topic)) by_topic[tp.topic].push_back(tp.partition);
    }
    for (auto& [name, parts] : by_topic) {
      auto& t = s.topic_partitions.emplace_back();
      t.name = name;
      t.partition_indexes = std::move(parts);
    }
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
