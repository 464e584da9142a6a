// Admin, transactions area: ListTransactions on every broker (each lists
// the transactions its coordinator partitions hold) and DescribeTransactions
// on the transactional id's coordinator (see admin.h).
#include <algorithm>
#include <set>

#include "client/admin/admin_routing.h"
#include "protocol/describe_transactions_request.h"
#include "protocol/list_transactions_request.h"

namespace spool::client {

using protocol::ErrorCode;

namespace {
constexpr int8_t kTransactionKey = 1;
}  // namespace

Result<protocol::ListTransactionsResponse> Admin::list_transactions(const std::vector<std::string>& states,
                                                                    const std::vector<int64_t>& producer_ids) {
  if (auto st = refresh_metadata({}); !st) return st;
  std::vector<Node> targets;
  for (const auto& [id, b] : cache_.brokers) targets.push_back(b);
  if (targets.empty()) {
    auto boot = any_node();
    if (!boot) return boot.status();
    targets.push_back(*boot);
  }
  protocol::ListTransactionsRequest req;
  req.state_filters = states;
  req.producer_id_filters = producer_ids;
  protocol::ListTransactionsResponse out;
  std::set<std::string> seen_ids;
  std::set<std::string> unknown;
  for (const auto& node : targets) {
    auto reply = call<protocol::ListTransactionsRequest, protocol::ListTransactionsResponse>(node, req);
    if (!reply) return reply.status();
    auto& m = reply->message;
    if (m.error_code != ErrorCode::kNone) {
      return Status::error(std::string(protocol::error_name(m.error_code)), protocol::to_int(m.error_code));
    }
    for (auto& s : m.unknown_state_filters) {
      if (unknown.insert(s).second) out.unknown_state_filters.push_back(std::move(s));
    }
    for (auto& t : m.transaction_states) {
      if (seen_ids.insert(t.transactional_id).second) out.transaction_states.push_back(std::move(t));
    }
  }
  return out;
}

Result<TransactionDescribed> Admin::describe_transaction(const std::string& transactional_id) {
  protocol::DescribeTransactionsRequest req;
  req.transactional_ids = {transactional_id};
  Node used;
  auto reply = call_retrying<protocol::DescribeTransactionsRequest, protocol::DescribeTransactionsResponse>(
      [&]() -> Result<Node> {
        auto n = coordinator(kTransactionKey, transactional_id);
        if (n) used = *n;
        return n;
      },
      req,
      [](const auto& m) {
        return m.transaction_states.size() == 1 ? m.transaction_states[0].error_code : ErrorCode::kNone;
      });
  if (!reply) return reply.status();
  if (reply->message.transaction_states.size() != 1) return Status::error("malformed answer");
  return TransactionDescribed{std::move(reply->message.transaction_states[0]), used};
}

}  // namespace spool::client
