// ElectLeaders v0-2 (KIP-460), as Kafka's ZooKeeper-mode KafkaApis serves it.
//  * TopicPartitions null: every partition this broker's metadata knows;
//    duplicates are asked once and answered once.
//  * v0 elects preferred replicas; v1+ ElectionType 0 PREFERRED, 1 UNCLEAN;
//    any other type answers INVALID_REQUEST (top level from v1, per
//    partition in v0).
//  * Cluster mode: the local Controller when it is the active one
//    (cluster/controller/controller_elections.cc has the per-partition
//    rules), else every partition NOT_CONTROLLER (the admin client sends it
//    to the controller). Elected partitions are answered once this broker's
//    metadata shows their new leader (Kafka's DelayedElectLeader), or
//    REQUEST_TIMED_OUT after TimeoutMs.
//  * One node: every existing partition is led by its only, preferred
//    replica: ELECTION_NOT_NEEDED; others UNKNOWN_TOPIC_OR_PARTITION.
#include <memory>
#include <set>

#include "broker/cluster_admin.h"
#include "broker/cluster_member.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/topic_entries.h"
#include "broker/replica_manager.h"
#include "cluster/metadata_cache.h"
#include "protocol/elect_leaders_request.h"
#include "protocol/elect_leaders_response.h"

namespace spool::broker {

using protocol::ErrorCode;
using cluster::controller::ElectionResult;
using cluster::controller::ElectionType;

namespace {

protocol::ElectLeadersResponse make_response(const std::vector<ElectionResult>& results) {
  protocol::ElectLeadersResponse resp;
  resp.error_code = ErrorCode::kNone;
  TopicEntries topics(resp.replica_election_results, &protocol::ElectLeadersResponse::ReplicaElectionResult::topic);
  for (const auto& r : results) {
    auto& p = topics[r.partition.topic].partition_result.emplace_back();
    p.partition_id = r.partition.partition;
    p.error_code = r.error;
    if (!r.message.empty()) p.error_message = r.message;
  }
  return resp;
}

// The partitions asked for, deduplicated in request order (null: all known).
std::vector<TopicPartition> wanted(BrokerContext& b, const protocol::ElectLeadersRequest& req) {
  std::vector<TopicPartition> out;
  if (!req.topic_partitions) {
    if (b.metadata != nullptr) {
      for (const auto& topic : b.metadata->topics())
        for (const auto& pm : b.metadata->topic_partitions(topic)) out.push_back(pm.tp);
    } else {
      for (const auto& info : b.replicas.topics())
        for (int32_t p = 0; p < info.partitions; ++p) out.emplace_back(info.name, p);
    }
    return out;
  }
  std::set<TopicPartition> seen;
  for (const auto& t : *req.topic_partitions)
    for (int32_t p : t.partitions)
      if (seen.emplace(t.topic, p).second) out.emplace_back(t.topic, p);
  return out;
}

void answer_when_cached(BrokerContext& b, const RequestContext& ctx, std::vector<ElectionResult> results,
                        int32_t timeout_ms) {
  auto elected = [](const std::vector<ElectionResult>& rs, const cluster::MetadataCache& cache) {
    for (const auto& r : rs) {
      if (r.error != ErrorCode::kNone) continue;
      auto pm = cache.partition(r.partition);
      if (!pm || pm->leader != r.leader) return false;
    }
    return true;
  };
  auto shared = std::make_shared<std::vector<ElectionResult>>(std::move(results));
  wait_for_cache(
      *b.cluster, [shared, elected](const cluster::MetadataCache& cache) { return elected(*shared, cache); },
      std::max<int32_t>(timeout_ms, 0), [ctx, shared, &b](bool done) {
        if (!done) {
          for (auto& r : *shared) {
            if (r.error != ErrorCode::kNone) continue;
            auto pm = b.metadata->partition(r.partition);
            if (pm && pm->leader == r.leader) continue;
            r.error = ErrorCode::kRequestTimedOut;
            r.message = "The election was done but this broker has not seen the new leader yet.";
          }
        }
        ctx.respond(make_response(*shared));
      });
}

}  // namespace

void handle_elect_leaders(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::ElectLeadersRequest req;
  if (!decode_or_close(ctx, body, req, "ElectLeaders")) return;
  const int16_t v = ctx.version();
  auto partitions = wanted(b, req);
  std::vector<ElectionResult> results;
  for (const auto& tp : partitions) results.push_back(ElectionResult{tp, ErrorCode::kNone, {}, -1});
  auto all = [&](ErrorCode e, const char* message) {
    for (auto& r : results) {
      r.error = e;
      if (message != nullptr) r.message = message;
    }
  };
  if (req.election_type != 0 && req.election_type != 1) {
    if (v >= 1) {
      protocol::ElectLeadersResponse resp;
      resp.error_code = ErrorCode::kInvalidRequest;
      return ctx.respond(resp);
    }
    all(ErrorCode::kInvalidRequest, "Unknown election type.");
    return ctx.respond(make_response(results));
  }
  if (!cluster_allowed(b, ctx, security::AclOperation::kAlter)) {  // Kafka's check
    all(ErrorCode::kClusterAuthorizationFailed, nullptr);
    protocol::ElectLeadersResponse resp = make_response(results);
    if (v >= 1) resp.error_code = ErrorCode::kClusterAuthorizationFailed;
    return ctx.respond(resp);
  }
  const auto type = static_cast<ElectionType>(req.election_type);
  if (b.cluster == nullptr) {
    for (auto& r : results) {
      if (b.replicas.partition(r.partition)) {
        r.error = ErrorCode::kElectionNotNeeded;
      } else {
        r.error = ErrorCode::kUnknownTopicOrPartition;
        r.message = "The partition does not exist.";
      }
    }
    return ctx.respond(make_response(results));
  }
  cluster::controller::Controller* controller = b.cluster->controller();
  if (controller == nullptr || !controller->is_active()) {
    all(ErrorCode::kNotController, nullptr);
    return ctx.respond(make_response(results));
  }
  if (partitions.empty()) return ctx.respond(make_response(results));
  const int32_t timeout_ms = req.timeout_ms;
  controller->elect_leaders(type, std::move(partitions),
                            [&b, ctx, timeout_ms](const std::vector<ElectionResult>& done) {
                              answer_when_cached(b, ctx, done, timeout_ms);
                            });
}

}  // namespace spool::broker
