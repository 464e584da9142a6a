// AddPartitionsToTxn v0-5, as Kafka 4.4's KafkaApis serves it.
//  * v0-3 (clients): one transaction (the V3AndBelow fields), answered in
//    ResultsByTopicV3AndBelow; PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH
//    below v2 (KIP-588).
//  * v4-5 (a partition leader verifying for the coordinator, KIP-890):
//    several transactions at once, each answered in ResultsByTransaction, a
//    top-level ErrorCode (NONE: Spool has no cluster ACLs). VerifyOnly asks
//    whether the partitions are already in the open transaction without
//    changing it: NONE, or TRANSACTION_ABORTABLE for one that is not, or one
//    error for all (INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED,
//    CONCURRENT_TRANSACTIONS while it is being prepared). Without VerifyOnly
//    the partitions are added as v3 adds them (Kafka also marks the
//    transaction as transaction version 2, which Spool does not have yet).
//    v5 is v4 for a caller that understands TRANSACTION_ABORTABLE.
// In every version each partition must exist (in a cluster: in the metadata
// cache, broker/topic_lookup.h; the coordinator need not host it): if one
// does not, it gets
// UNKNOWN_TOPIC_OR_PARTITION and every other one of that transaction
// OPERATION_NOT_ATTEMPTED, without touching the transaction. Otherwise the
// coordinator's one error applies to all of them, answered once the new
// state is durable.
// With an authorizer (Kafka's checks): v4+ needs CLUSTER_ACTION on the
// cluster (else the top-level CLUSTER_AUTHORIZATION_FAILED and no results);
// v0-3 need WRITE on the transactional id (else every partition
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED) and WRITE on each topic (else its
// partitions TOPIC_AUTHORIZATION_FAILED and the others
// OPERATION_NOT_ATTEMPTED), before the existence check.
#include <map>
#include <set>
#include <memory>
#include <mutex>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/txn_common.h"
#include "broker/topic_lookup.h"
#include "broker/txn_service.h"
#include "protocol/add_partitions_to_txn_request.h"
#include "protocol/add_partitions_to_txn_response.h"

namespace spool::broker {

using protocol::ErrorCode;
using Request = protocol::AddPartitionsToTxnRequest;
using Response = protocol::AddPartitionsToTxnResponse;
using TopicResults = std::vector<Response::AddPartitionsToTxnTopicResult>;

namespace {

// One transaction of the request, whatever the version.
struct TxnAsk {
  std::string transactional_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  bool verify_only = false;
  std::vector<Request::AddPartitionsToTxnTopic> topics;
};

// Every requested partition of `topics` with the error error_for(topic, p).
template <typename ErrorFor>
TopicResults results_for(const std::vector<Request::AddPartitionsToTxnTopic>& topics, int16_t v, ErrorFor error_for) {
  TopicResults out;
  for (const auto& t : topics) {
    auto& rt = out.emplace_back();
    rt.name = t.name;
    for (int32_t p : t.partitions) {
      auto& rp = rt.results_by_partition.emplace_back();
      rp.partition_index = p;
      rp.partition_error_code = txn_error(error_for(t.name, p), v, 2);
    }
  }
  return out;
}

// Collects the per-transaction answers (they may come from other threads)
// and responds once the last one is in, in request order.
struct Collector {
  Collector(RequestContext c, int16_t version, size_t n) : ctx(std::move(c)), v(version), results(n), left(n) {}
  RequestContext ctx;
  int16_t v;
  std::mutex mu;
  std::vector<std::pair<std::string, TopicResults>> results;
  size_t left;

  void put(size_t i, std::string id, TopicResults r) {
    {
      std::lock_guard lk(mu);
      results[i] = {std::move(id), std::move(r)};
      if (--left != 0) return;
    }
    Response resp;
    if (v < 4) {
      resp.results_by_topic_v3_and_below = std::move(results[0].second);
    } else {
      resp.error_code = ErrorCode::kNone;
      for (auto& [id, r] : results) {
        auto& t = resp.results_by_transaction.emplace_back();
        t.transactional_id = std::move(id);
        t.topic_results = std::move(r);
      }
    }
    ctx.respond(resp);
  }
};

void handle_one(BrokerContext& b, const std::shared_ptr<Collector>& out, size_t i, TxnAsk ask) {
  const int16_t v = out->v;
  auto all = [&](ErrorCode e) {
    return results_for(ask.topics, v, [e](const std::string&, int32_t) { return e; });
  };
  if (v < 4) {
    const RequestContext& ctx = out->ctx;
    if (!allowed(b, ctx, security::AclOperation::kWrite, security::ResourceType::kTransactionalId,
                 ask.transactional_id)) {
      return out->put(i, ask.transactional_id, all(ErrorCode::kTransactionalIdAuthorizationFailed));
    }
    std::set<std::string> refused;
    for (const auto& t : ask.topics) {
      if (!topic_allowed(b, ctx, security::AclOperation::kWrite, t.name)) refused.insert(t.name);
    }
    if (!refused.empty()) {
      return out->put(i, ask.transactional_id, results_for(ask.topics, v, [&](const std::string& topic, int32_t) {
                        return refused.count(topic) > 0 ? ErrorCode::kTopicAuthorizationFailed
                                                        : ErrorCode::kOperationNotAttempted;
                      }));
    }
  }
  if (b.txns == nullptr) return out->put(i, ask.transactional_id, all(ErrorCode::kCoordinatorNotAvailable));
  std::vector<coordinator::TxnPartition> partitions;
  bool unknown = false;
  for (const auto& t : ask.topics) {
    for (int32_t p : t.partitions) {
      if (!partition_exists(b, t.name, p)) unknown = true;
      partitions.push_back(coordinator::TxnPartition{t.name, p});
    }
  }
  if (unknown) {
    return out->put(i, ask.transactional_id, results_for(ask.topics, v, [&b](const std::string& topic, int32_t p) {
                      return partition_exists(b, topic, p) ? ErrorCode::kOperationNotAttempted
                                                           : ErrorCode::kUnknownTopicOrPartition;
                    }));
  }
  if (ask.verify_only) {
    auto verified = b.txns->coordinator().verify_partitions(ask.transactional_id, ask.producer_id,
                                                            ask.producer_epoch, partitions);
    std::map<coordinator::TxnPartition, ErrorCode> by_partition;
    for (const auto& r : verified) by_partition[r.partition] = r.error;
    return out->put(i, ask.transactional_id, results_for(ask.topics, v, [&](const std::string& topic, int32_t p) {
                      return by_partition[coordinator::TxnPartition{topic, p}];
                    }));
  }
  std::string id = ask.transactional_id;
  b.txns->coordinator().add_partitions(
      id, ask.producer_id, ask.producer_epoch, std::move(partitions),
      [out, i, id, topics = std::move(ask.topics)](ErrorCode e) {
        out->put(i, id, results_for(topics, out->v, [e](const std::string&, int32_t) { return e; }));
      });
}

}  // namespace

void handle_add_partitions_to_txn(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  Request req;
  if (!decode_or_close(ctx, body, req, "AddPartitionsToTxn")) return;
  const int16_t v = ctx.version();
  std::vector<TxnAsk> asks;
  if (v < 4) {
    asks.push_back(TxnAsk{std::move(req.v3_and_below_transactional_id), req.v3_and_below_producer_id,
                          req.v3_and_below_producer_epoch, false, std::move(req.v3_and_below_topics)});
  } else {
    for (auto& t : req.transactions) {
      asks.push_back(TxnAsk{std::move(t.transactional_id), t.producer_id, t.producer_epoch, t.verify_only,
                            std::move(t.topics)});
    }
  }
  if (v >= 4 && !cluster_allowed(b, ctx, security::AclOperation::kClusterAction)) {
    Response resp;
    resp.error_code = ErrorCode::kClusterAuthorizationFailed;
    ctx.respond(resp);
    return;
  }
  if (asks.empty()) {  // v4+ with no transaction: an empty answer
    Response resp;
    ctx.respond(resp);
    return;
  }
  auto out = std::make_shared<Collector>(ctx, v, asks.size());
  for (size_t i = 0; i < asks.size(); ++i) handle_one(b, out, i, std::move(asks[i]));
}

}  // namespace spool::broker
