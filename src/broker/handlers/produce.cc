// Produce: decode, refuse what the request itself gets wrong, and hand each
// partition's batches to ReplicaManager::append_records, which validates and
// appends them (offsets assigned in place, in the request frame: the records
// are never copied before the segment write) and answers. acks=0 gets no answer, unless a partition failed:
// then, as Kafka does, the connection is closed so the client notices.
// acks=all answers once every appended partition is durable (group-committed
// fsync when durable.writes is on) through a DelayedProduce in the replica
// manager's produce purgatory, or REQUEST_TIMED_OUT after timeout.ms; acks=1 never waits for
// the disk. acks=all is refused with NOT_ENOUGH_REPLICAS, before anything is
// appended, while the topic's min.insync.replicas exceeds the in-sync replicas
// (on one node: whenever it is above 1), as Kafka does; acks=0/1 are not.
// Idempotent producers: see storage/producer_state.h (checked in the append).
// Kafka's request-level rules come first: transactional records (the first
// batch of a partition marked transactional) in a request without a
// transactional id refuse the whole request with
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED (acks=0: the connection is closed),
// and a zstd batch below v7 is UNSUPPORTED_COMPRESSION_TYPE for its partition.
// Produce v0-2 carry the old message formats that Spool does not store; they
// are advertised (librdkafka keeps its codecs on only when v0 is in range) and
// answered with UNSUPPORTED_VERSION per partition.
// Versions: v9 is flexible (same semantics). v10 (KIP-951) adds the
// CurrentLeader / NodeEndpoints tags, filled for partitions answered
// NOT_LEADER_OR_FOLLOWER (never on one node, where this broker leads every
// partition; the code path is there for cluster mode). v11/v12 (KIP-890) only
// allow TRANSACTION_ABORTABLE, which Kafka returns when transaction
// verification fails; Spool does no partition verification, so it never
// occurs, and v12's implicit AddPartitionsToTxn of transaction version 2 is
// not done either (Spool does not enable transaction.version 2, so clients
// still add partitions explicitly). v13 (KIP-516) names each topic by id: an
// id the registry does not know (deleted, never existed, or all zero) is
// UNKNOWN_TOPIC_ID for each of its partitions; a partition whose data belongs
// to another id (the topic was re-created meanwhile) is INCONSISTENT_TOPIC_ID;
// the answer carries the id, not the name.
// With an authorizer (Kafka's checks): a transactional id needs WRITE on it
// (else the whole request is TRANSACTIONAL_ID_AUTHORIZATION_FAILED), and
// each topic needs WRITE (else TOPIC_AUTHORIZATION_FAILED for its
// partitions, before any other partition check).
#include <spdlog/spdlog.h>

#include <memory>
#include <optional>
#include <string>

#include "broker/client_quota_manager.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_name.h"
#include "protocol/error_code.h"
#include "protocol/produce_request.h"
#include "protocol/produce_response.h"
#include "record/batch_header.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

constexpr int16_t kFirstServedVersion = 3;
constexpr int16_t kFirstZstdVersion = 7;  // KIP-110

// KIP-951 (v10+): a partition answered NOT_LEADER_OR_FOLLOWER names the
// leader (here: this node, at the partition's epoch) and the response lists
// that leader's endpoint once.
void add_current_leaders(const BrokerContext& b, std::string_view listener, protocol::ProduceResponse& resp) {
  const cluster::EndPoint* self = b.settings.advertised_on(listener);
  for (auto& tr : resp.responses) {
    for (auto& pr : tr.partition_responses) {
      if (pr.error_code != ErrorCode::kNotLeaderOrFollower) continue;
      auto partition = b.replicas.partition(tr.name, pr.index);
      if (!partition) continue;  // leader unknown: the tag stays at its default (-1, -1)
      pr.current_leader.leader_id = b.settings.broker_id;
      pr.current_leader.leader_epoch = partition->leader_epoch();
      if (resp.node_endpoints.empty() && self != nullptr) {
        auto& n = resp.node_endpoints.emplace_back();
        n.node_id = b.settings.broker_id;
        n.host = self->host;
        n.port = self->port;
      }
    }
  }
}

// The answer to a request refused as a whole: `error` for every partition.
protocol::ProduceResponse error_for_every_partition(const protocol::ProduceRequest& req, ErrorCode error) {
  protocol::ProduceResponse resp;
  for (const auto& td : req.topic_data) {
    auto& tr = resp.responses.emplace_back();
    tr.name = td.name;
    tr.topic_id = td.topic_id;
    for (const auto& pd : td.partition_data) {
      auto& pr = tr.partition_responses.emplace_back();
      pr.index = pd.index;
      pr.error_code = error;
      pr.base_offset = -1;
    }
  }
  return resp;
}

// The first batch's attributes when it is a v2 batch (Kafka reads only the
// first batch of each partition for these request-level checks).
std::optional<int16_t> first_batch_attributes(const protocol::ProduceRequest::TopicProduceData::PartitionProduceData& pd) {
  if (!pd.records) return std::nullopt;
  const ByteSpan bytes = pd.records->bytes();
  if (bytes.size() < record::kAttributesPos + 2 || bytes[record::kMagicPos] != 2) return std::nullopt;
  return static_cast<int16_t>((bytes[record::kAttributesPos] << 8) | bytes[record::kAttributesPos + 1]);
}

// Kafka's RequestUtils.hasTransactionalRecords.
bool has_transactional_records(const protocol::ProduceRequest& req) {
  for (const auto& td : req.topic_data) {
    for (const auto& pd : td.partition_data) {
      auto attributes = first_batch_attributes(pd);
      if (attributes && (*attributes & record::kTransactionalBit)) return true;
    }
  }
  return false;
}

}  // namespace

void handle_produce(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  // Each partition's records decode as a view into the frame (protocol::
  // Records): the batches stay where recv put them and offsets are assigned
  // by rewriting their headers in place. The frame is owned by
  // Dispatcher::handle for the whole call and nothing keeps a view past it
  // (append_records reads the bytes before it returns; acks=all waits hold
  // offsets, not bytes).
  protocol::ProduceRequest req;
  if (!decode_or_close(ctx, body, req, "Produce")) return;
  const int16_t v = ctx.version();
  const bool served = v >= kFirstServedVersion;
  if (req.acks != 0 && req.acks != 1 && req.acks != -1) {
    // Kafka answers INVALID_REQUIRED_ACKS for every partition.
    ctx.respond(error_for_every_partition(req, ErrorCode::kInvalidRequiredAcks));
    return;
  }
  if (served && !req.transactional_id && has_transactional_records(req)) {
    // Kafka's KafkaApis: transactional records need the transactional id
    // they are written under. Refused as a whole, so a producer that is not
    // in a transaction cannot leave one open on a partition (it would hold
    // the last stable offset back for read_committed consumers).
    if (req.acks == 0) {
      ctx.close("acks=0 produce of transactional records without a transactional id");
    } else {
      ctx.respond(error_for_every_partition(req, ErrorCode::kTransactionalIdAuthorizationFailed));
    }
    return;
  }
  if (served && req.transactional_id &&
      !allowed(b, ctx, security::AclOperation::kWrite, security::ResourceType::kTransactionalId,
               *req.transactional_id)) {
    if (req.acks == 0) {
      ctx.close("acks=0 produce under a transactional id the principal may not write");
    } else {
      ctx.respond(error_for_every_partition(req, ErrorCode::kTransactionalIdAuthorizationFailed));
    }
    return;
  }

  // The answer's shape (names, ids, indexes), filled from the results in
  // entry order once append_records calls back.
  auto shape = std::make_shared<protocol::ProduceResponse>();
  std::vector<ProduceEntry> entries;
  shape->responses.reserve(req.topic_data.size());
  for (auto& td : req.topic_data) {
    auto& tr = shape->responses.emplace_back();
    // v13: the topic is named by id; resolved once per topic, not per partition.
    bool unknown_id = false;
    if (v >= 13) {
      tr.topic_id = td.topic_id;
      if (auto name = b.registry.name_of(td.topic_id)) {
        td.name = std::move(*name);  // the request's name field is not on the wire at v13
      } else {
        unknown_id = true;
      }
    }
    tr.name = td.name;  // not encoded at v13; kept for the leader lookups below
    const bool permitted = unknown_id || topic_allowed(b, ctx, security::AclOperation::kWrite, td.name);
    tr.partition_responses.reserve(td.partition_data.size());
    for (auto& pd : td.partition_data) {
      tr.partition_responses.emplace_back().index = pd.index;
      auto& e = entries.emplace_back();
      e.tp = TopicPartition(td.name, pd.index);
      if (v >= 13) e.topic_id = td.topic_id;
      if (pd.records) e.batches = pd.records->bytes();
      if (!served) {
        e.error = ErrorCode::kUnsupportedVersion;
        e.error_message = "produce v0-2 (message format v0/v1) is not supported";
      } else if (unknown_id) {
        e.error = ErrorCode::kUnknownTopicId;
      } else if (!permitted) {
        e.error = ErrorCode::kTopicAuthorizationFailed;
      } else if (is_internal_topic(td.name)) {
        e.error = ErrorCode::kInvalidTopicException;
        e.error_message = "Cannot append to internal topic " + td.name;
      } else if (auto attributes = first_batch_attributes(pd);
                 v < kFirstZstdVersion && attributes &&
                 (*attributes & record::kCompressionMask) == static_cast<int16_t>(record::Compression::kZstd)) {
        // Kafka's ProduceRequest.validateRecords.
        e.error = ErrorCode::kUnsupportedCompressionType;
        e.error_message = "Produce requests with version " + std::to_string(v) +
                          " are not allowed to use ZStandard compression";
      }
    }
  }

  // The client's produce quota counts the whole request, as Kafka's
  // request.sizeInBytes (an acks=0 producer is muted all the same).
  if (b.quotas != nullptr && b.quotas->active(QuotaKind::kProduce)) {
    ctx.add_throttle(b.quotas->record(QuotaKind::kProduce, ctx.quota_user(), ctx.client_id(),
                                      static_cast<double>(ctx.request_bytes), ClientQuotaManager::now_ms()));
  }
  const int16_t acks = req.acks;
  BrokerContext* broker = &b;
  auto answer = [broker, ctx, v, acks, shape](std::vector<ProduceResult> results) {
    bool any_error = false;
    size_t i = 0;
    for (auto& tr : shape->responses) {
      for (auto& pr : tr.partition_responses) {
        ProduceResult& r = results[i++];
        pr.error_code = r.error;
        if (!r.error_message.empty()) pr.error_message = std::move(r.error_message);
        pr.base_offset = r.base_offset;
        pr.log_append_time_ms = r.log_append_time_ms;
        pr.log_start_offset = r.log_start_offset;
        if (r.error != ErrorCode::kNone) any_error = true;
      }
    }
    if (acks == 0) {
      if (any_error) {
        ctx.close("acks=0 produce failed on at least one partition");
      } else {
        ctx.no_response();
      }
      return;
    }
    if (v >= 10 && any_error) add_current_leaders(*broker, ctx.listener_name, *shape);
    ctx.respond(*shape);
  };
  b.replicas.append_records(acks, req.timeout_ms, entries, std::move(answer));
}

}  // namespace spool::broker
