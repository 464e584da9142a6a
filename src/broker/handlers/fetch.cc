// Fetch (v4-18, consumers only for now): decoded here, read by
// ReplicaManager::fetch_messages (replica_manager_fetch.cc): whole batches from each requested
// partition up to the high watermark (read_uncommitted) or the last stable
// offset (read_committed, isolation_level 1), bounded by partition_max_bytes and the
// request's max_bytes (the first batch found is always returned whole, as
// Kafka does, so a batch larger than the limits cannot stall a consumer).
// When less than min_bytes is available the request is parked as a
// DelayedFetch in the replica manager's fetch purgatory, watched under each partition's key: a
// high-watermark move on any of them re-checks it at once, and max_wait_ms
// expiry answers with what exists.
// Fetch sessions (KIP-227, v7+): the FetchSessionCache classifies the request
// once, up front, here; its context says which partitions to read (for an
// incremental fetch: the whole session) and builds the answer from what was
// read (for an incremental fetch: only the changed partitions).
// Transactions: every answer carries last_stable_offset = the partition's
// LSO (as Kafka does for both isolation levels); read_committed answers also
// list the aborted transactions (producer id, first offset) overlapping the
// returned range, which clients use to drop the aborted producers' batches
// up to their ABORT marker.
// Versions (as Kafka 4.4's leader answers a consumer):
//   v9+  CurrentLeaderEpoch fencing: a given epoch (>= 0) older than the
//        partition's is FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH.
//   v12  flexible. LastFetchedEpoch (>= 0) is checked against the leader-epoch
//        cache: no end offset for it (or a fetch offset below the log start)
//        is OFFSET_OUT_OF_RANGE; an epoch that ended before the fetch offset,
//        or is unknown here, answers DivergingEpoch = (largest epoch <= it,
//        its end offset) with no records, at once. ClusterId is ignored
//        (Kafka checks it only on the KRaft controller's fetch).
//   v13  topics by TopicId, also in sessions and ForgottenTopicsData: an id
//        the registry does not know is UNKNOWN_TOPIC_ID; a session partition
//        whose topic was re-created (same name, new id) is
//        INCONSISTENT_TOPIC_ID; the answer names topics by id. v14: same.
//   v15  ReplicaState (ReplicaId/ReplicaEpoch) replaces ReplicaId; a replica
//        id >= 0 is refused as before.
//   v16  NodeEndpoints: with CurrentLeader, filled for FENCED_LEADER_EPOCH
//        (and NOT_LEADER_OR_FOLLOWER, never answered on one node).
//   v17/v18 ReplicaDirectoryId and HighWatermark are a follower's fields:
//        decoded and ignored, as Kafka's leader ignores them for consumers.
// With an authorizer (Kafka's checks): a consumer needs READ on each topic,
// a follower CLUSTER_ACTION on the cluster; a refused partition answers
// TOPIC_AUTHORIZATION_FAILED and is not read.
// Zero copy: partitions are read as file regions of their segments (only
// batch headers are read), and the answer carries them as protocol::Records
// of regions, which the encoder leaves as splices the connection fills with
// sendfile (RequestContext::respond); with sendfile off the net layer reads
// them into memory instead, same bytes.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "broker/client_quota_manager.h"
#include "broker/fetch_session_cache.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/metrics/topic_metrics.h"
#include "protocol/error_code.h"
#include "protocol/fetch_request.h"
#include "protocol/fetch_response.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

// KIP-951 (v16+): a FENCED_LEADER_EPOCH partition names its leader, this
// node at its epoch, in CurrentLeader, and the answer lists that leader's
// endpoint once in NodeEndpoints.
void name_leaders(const BrokerContext& b, std::string_view listener, const std::vector<FetchPartitionWanted>& wanted,
                  std::vector<FetchPartitionResult>& results,
                  std::vector<protocol::FetchResponse::NodeEndpoint>& leaders) {
  const cluster::EndPoint* self = b.settings.advertised_on(listener);
  for (size_t i = 0; i < results.size() && i < wanted.size(); ++i) {
    auto& pr = results[i];
    if (pr.error_code != ErrorCode::kFencedLeaderEpoch) continue;
    const auto& fp = wanted[i];
    std::string name = fp.topic;
    if (name.empty()) {
      if (auto n = b.registry.name_of(fp.topic_id)) name = std::move(*n);
    }
    auto partition = b.replicas.partition(name, fp.partition);
    if (!partition) continue;  // gone since the read: leader unknown
    pr.current_leader.leader_id = b.settings.broker_id;
    pr.current_leader.leader_epoch = partition->leader_epoch();
    if (leaders.empty() && self != nullptr) {
      auto& n = leaders.emplace_back();
      n.node_id = b.settings.broker_id;
      n.host = self->host;
      n.port = self->port;
    }
  }
}

// BrokerTopicMetrics for the answer's partitions (`results` line up with
// the session's partitions): consumers' bytes per topic, followers' as
// replication bytes.
void count_fetch(const FetchContext& session, const std::vector<FetchPartitionResult>& results, bool follower) {
  auto& m = TopicMetrics::instance();
  const auto& wanted = session.partitions();
  for (size_t i = 0; i < results.size() && i < wanted.size(); ++i) {
    const auto bytes = static_cast<int64_t>(results[i].records ? results[i].records->size() : 0);
    if (follower) {
      m.replication_bytes_out().add(bytes);
      continue;
    }
    auto& t = m.of(wanted[i].topic);
    t.fetch_requests.add();
    if (results[i].error_code != ErrorCode::kNone) t.failed_fetch.add();
    t.bytes_out.add(bytes);
  }
}

// Records the answer's size against the client's fetch quota. Over it, the
// bytes are taken back and the client throttled: true, answer empty (Kafka
// sends a throttled consumer nothing, so its quota holds).
bool charge_fetch(BrokerContext& b, const RequestContext& ctx, const std::vector<FetchPartitionResult>& results) {
  double bytes = 64;
  for (const auto& r : results) bytes += 48 + static_cast<double>(r.records ? r.records->size() : 0);
  const int64_t now = ClientQuotaManager::now_ms();
  const int64_t throttle = b.quotas->record(QuotaKind::kFetch, ctx.quota_user(), ctx.client_id(), bytes, now);
  if (throttle <= 0) return false;
  b.quotas->unrecord(QuotaKind::kFetch, ctx.quota_user(), ctx.client_id(), bytes, now);
  ctx.add_throttle(throttle);
  return true;
}

}  // namespace

void handle_fetch(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::FetchRequest req;
  if (!decode_or_close(ctx, body, req, "Fetch")) return;
  // v15+ carries the fetcher's id in the ReplicaState tag (KIP-903).
  const int32_t replica_id = ctx.version() >= 15 ? req.replica_state.replica_id : req.replica_id;
  if (replica_id >= 0 && !b.replicas.cluster_mode()) {
    ctx.close("replica fetches are not served by a single-node broker");
    return;
  }
  auto resolve = [&b](const TopicId& id) {
    auto n = b.registry.name_of(id);
    return n ? std::move(*n) : std::string();
  };
  // Shared with the callback: it builds the answer (and updates an
  // incremental session) from the results, possibly after a wait.
  auto session = std::make_shared<FetchContext>(
      b.fetch_sessions.new_context(req, ctx.version(), /*is_follower=*/replica_id >= 0, resolve));
  if (session->error()) {
    ctx.respond(session->make_response({}));  // a session error reads nothing and waits for nothing
    return;
  }
  FetchParams params;
  params.replica_id = replica_id;
  if (ctx.version() >= 15) params.replica_epoch = req.replica_state.replica_epoch;
  params.isolation_level = req.isolation_level;
  params.max_wait_ms = req.max_wait_ms;
  params.min_bytes = req.min_bytes;
  params.max_bytes = req.max_bytes;
  params.by_topic_id = ctx.version() >= 13;
  params.partitions = session->partitions();
  if (b.authorizer != nullptr) {
    if (replica_id >= 0) {
      if (!cluster_allowed(b, ctx, security::AclOperation::kClusterAction)) {
        params.may_read = [](const std::string&) { return false; };
      }
    } else {
      params.may_read = [authorizer = b.authorizer, principal = ctx.principal,
                         host = std::string(ctx.client_address())](const std::string& topic) {
        return authorizer->authorize(principal, host, security::AclOperation::kRead, security::ResourceType::kTopic,
                                     topic);
      };
    }
  }
  // Client quotas: followers are exempt (the replication quotas hold them);
  // a consumer reads at most one quota window's bytes per fetch (Kafka's
  // maxQuotaWindowBytes), and is charged the answer's size once it is known.
  const bool metered = replica_id < 0 && b.quotas != nullptr && b.quotas->active(QuotaKind::kFetch);
  if (replica_id >= 0) ctx.throttled_ms = 0;  // nor do request-time quotas hold a follower
  if (metered) {
    if (auto quota = b.quotas->quota(QuotaKind::kFetch, ctx.quota_user(), ctx.client_id())) {
      const double window_bytes = *quota * static_cast<double>(b.quotas->window_ms()) / 1000.0;
      params.max_bytes = static_cast<int32_t>(std::max(1.0, std::min<double>(params.max_bytes, window_bytes)));
    }
  }
  BrokerContext* broker = &b;
  b.replicas.fetch_messages(std::move(params), [broker, ctx, session, metered,
                                                 follower = replica_id >= 0](std::vector<FetchPartitionResult> results) {
    if (metered && charge_fetch(*broker, ctx, results)) {
      ctx.respond(session->throttled_response());
      return;
    }
    count_fetch(*session, results, follower);
    std::vector<protocol::FetchResponse::NodeEndpoint> leaders;
    if (ctx.version() >= 16) name_leaders(*broker, ctx.listener_name, session->partitions(), results, leaders);
    const size_t partitions = results.size();
    auto resp = session->make_response(std::move(results));
    if (!resp.responses.empty()) resp.node_endpoints = std::move(leaders);
    ctx.respond(resp, 64 + 96 * partitions);
  });
}

}  // namespace spool::broker
