// Metadata v0-13: this broker as the only broker and controller, and its
// topics.
// - v0: an empty topic list means all topics; v1+: null means all, empty none.
// - Unknown topics are created when auto.create.topics.enable is on and the
//   request allows it (v4+ flag); on a single node they are ready at once, so
//   the answer carries them with NONE instead of Kafka's LEADER_NOT_AVAILABLE.
//   Naming __consumer_offsets creates it (with its partitions loaded by the
//   group coordinator), as Kafka creates internal topics on request.
// - A name asked for twice is answered once (Kafka keeps a set).
// - v8+: authorized operations on request (handlers/authorize.h; all of
//   them without an authorizer); the cluster's only in v8-10 (v11 moved it
//   to DescribeCluster, KIP-700).
// - With an authorizer (Kafka's checks): the all-topics form lists only the
//   topics the principal may DESCRIBE; a named topic without DESCRIBE, or
//   one that would be auto-created without CREATE on the cluster or the
//   topic, answers TOPIC_AUTHORIZATION_FAILED (no id, no partitions).
// - v10+: TopicId in the answer. v10-11 requests must not use ids or null
//   names: Kafka answers INVALID_REQUEST for every topic then.
// - v12: a topic named by id (name null) is answered with its name; an
//   unknown id with UNKNOWN_TOPIC_ID and no name, first. As Kafka, once any
//   id is given the names in the request are ignored, and a null name
//   without an id (nothing to look up) fails the whole request with
//   UNKNOWN_SERVER_ERROR.
// - v13: top-level ErrorCode (NONE, or the whole-request error).
// - Bytes after the body are ignored (as Kafka does; librdkafka sends some).
// - A request that would create a topic is answered from the admin executor
//   (broker/admin_executor.h) after the creation; if the executor refuses
//   the job, those topics answer LEADER_NOT_AVAILABLE (clients retry).
#include <spdlog/spdlog.h>

#include <set>

#include "broker/group_service.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/cluster_handlers.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_name.h"
#include "protocol/error_code.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"

namespace spool::broker {

using protocol::ErrorCode;
using Resp = protocol::MetadataResponse;

namespace {

void describe_topic(BrokerContext& b, const TopicInfo& info, Resp::MetadataResponseTopic& t) {
  t.error_code = ErrorCode::kNone;
  t.name = info.name;
  t.topic_id = info.id;
  t.is_internal = is_internal_topic(info.name);
  for (int32_t p = 0; p < info.partitions; ++p) {
    auto& part = t.partitions.emplace_back();
    auto partition = b.replicas.partition(info.name, p);
    part.partition_index = p;
    part.leader_id = b.settings.broker_id;
    part.leader_epoch = partition ? partition->leader_epoch() : 0;
    part.replica_nodes = {b.settings.broker_id};
    part.isr_nodes = {b.settings.broker_id};
    part.error_code = (partition ? ErrorCode::kNone : ErrorCode::kLeaderNotAvailable);
  }
}

// How answer_by_name treats a topic it would create: create it (on the admin
// executor), or not here (on the reactor, for a topic deleted since the
// request was checked, or when the executor refused the job): answer
// LEADER_NOT_AVAILABLE, which clients retry, as Kafka answers while a topic
// is being created.
enum class Creation { kCreate, kNotHere };

// Whether answering `name` would create a topic (then the request is
// answered from the admin executor).
bool would_create(BrokerContext& b, const std::string& name, bool may_create) {
  if (b.replicas.topic(name)) return false;
  if (name == kConsumerOffsetsTopic && b.groups != nullptr) return true;
  return may_create && !is_internal_topic(name);
}

// The named topic's answer, creating it first when allowed.
void answer_by_name(BrokerContext& b, const std::string& name, bool may_create, Creation creation,
                    Resp::MetadataResponseTopic& t) {
  t.name = name;
  auto info = b.replicas.topic(name);
  if (!info && creation == Creation::kNotHere && would_create(b, name, may_create)) {
    t.error_code = ErrorCode::kLeaderNotAvailable;
    return;
  }
  if (!info && name == kConsumerOffsetsTopic && b.groups != nullptr) {
    // As Kafka: asking for the offsets topic creates it (whatever
    // auto.create.topics.enable says), with its own settings.
    if (b.groups->ensure_offsets_topic() == ErrorCode::kNone) info = b.replicas.topic(name);
  }
  if (!info && may_create && !is_internal_topic(name)) {
    auto created = b.replicas.create_topic(name, b.settings.num_partitions, {}, false);
    if (created) {
      info = created.value();
    } else if (created.status().kafka_code() == static_cast<int16_t>(ErrorCode::kTopicAlreadyExists)) {
      info = b.replicas.topic(name);  // created concurrently by another request
    } else {
      spdlog::info("auto-creating topic '{}' refused: {}", name, created.status().message());
      t.error_code = static_cast<ErrorCode>(created.status().kafka_code());
      return;
    }
  }
  if (!info) {
    t.error_code = is_valid_topic_name(name) ? ErrorCode::kUnknownTopicOrPartition : ErrorCode::kInvalidTopicException;
    return;
  }
  describe_topic(b, *info, t);
}

// Kafka's whole-request error answer: every requested topic with the error
// (a null name as ""), no partitions; v13 also at top level.
void respond_error(const RequestContext& ctx, const protocol::MetadataRequest& req, Resp& resp, ErrorCode e) {
  resp.topics.clear();
  if (req.topics) {
    for (const auto& rt : *req.topics) {
      auto& t = resp.topics.emplace_back();
      t.error_code = e;
      t.name = rt.name.value_or("");
      t.topic_id = rt.topic_id;
    }
  }
  resp.cluster_authorized_operations = INT32_MIN;
  resp.error_code = e;
  ctx.respond(resp);
}

// What is left to answer once the request is validated: the response so far
// (brokers, cluster, unknown ids) and the topic names to describe.
struct Job {
  Resp resp;
  std::vector<std::string> names;
  bool all = false;
  bool may_create = false;
  bool topic_ops = false;
  std::set<std::string> refused;  // answered TOPIC_AUTHORIZATION_FAILED
};

void answer_topics(BrokerContext& b, const RequestContext& ctx, Job& job, Creation creation) {
  Resp& resp = job.resp;
  std::set<std::string> answered;
  for (const auto& name : job.names) {
    if (!answered.insert(name).second) continue;
    auto& t = resp.topics.emplace_back();
    if (job.refused.count(name) > 0) {
      t.name = name;
      t.error_code = ErrorCode::kTopicAuthorizationFailed;
      continue;
    }
    if (job.all) {
      if (auto info = b.replicas.topic(name)) {
        describe_topic(b, *info, t);
      } else {
        resp.topics.pop_back();  // deleted meanwhile
        continue;
      }
    } else {
      answer_by_name(b, name, job.may_create, creation, t);
    }
    if (job.topic_ops) t.topic_authorized_operations = topic_authorized_operations(b, ctx, name);
  }
  ctx.respond(resp);
}

}  // namespace

void handle_metadata(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::MetadataRequest req;
  // Trailing bytes after the body are ignored here, as Kafka ignores them:
  // librdkafka (2.16) asks for all topics at v9+ with a 4-byte placeholder
  // where the compact array count goes (00 00 00 00: a null array, then
  // three bytes Kafka never reads).
  if (!req.decode(body, ctx.version()) || !body.ok()) {
    ctx.close("undecodable Metadata v" + std::to_string(ctx.version()) + " request");
    return;
  }
  if (b.cluster != nullptr) return cluster_metadata(b, ctx, req);  // from the metadata cache
  const int16_t v = ctx.version();
  const protocol::Uuid kNoId{};

  Resp resp;
  // This broker on the request's listener (none when advertised.listeners
  // leaves that listener out, as Kafka lists only registered endpoints).
  if (const cluster::EndPoint* self = b.settings.advertised_on(ctx.listener_name)) {
    auto& broker = resp.brokers.emplace_back();
    broker.node_id = b.settings.broker_id;
    broker.host = self->host;
    broker.port = self->port;
  }
  resp.cluster_id = b.logs.cluster_id();
  resp.controller_id = b.settings.broker_id;
  resp.error_code = ErrorCode::kNone;

  const bool all = !req.topics.has_value() || (v == 0 && req.topics->empty());
  if (!all && v < 12) {
    for (const auto& rt : *req.topics) {
      if (!rt.name || rt.topic_id != kNoId) return respond_error(ctx, req, resp, ErrorCode::kInvalidRequest);
    }
  }
  const bool topic_ops = v >= 8 && req.include_topic_authorized_operations;
  if (v >= 8 && v <= 10 && req.include_cluster_authorized_operations)
    resp.cluster_authorized_operations = cluster_authorized_operations(b, ctx);

  std::vector<std::string> names;
  bool by_id = false;
  if (all) {
    for (const auto& info : b.replicas.topics()) {
      if (topic_allowed(b, ctx, security::AclOperation::kDescribe, info.name)) names.push_back(info.name);
    }
  } else {
    std::set<protocol::Uuid> ids_seen;
    for (const auto& rt : *req.topics) {
      if (rt.topic_id == kNoId || !ids_seen.insert(rt.topic_id).second) continue;
      if (auto info = b.registry.get_by_id(rt.topic_id)) {
        names.push_back(info->name);
      } else {
        auto& t = resp.topics.emplace_back();
        t.error_code = ErrorCode::kUnknownTopicId;
        t.name = std::nullopt;
        t.topic_id = rt.topic_id;
      }
    }
    by_id = !ids_seen.empty();
    if (!by_id) {
      for (const auto& rt : *req.topics) {
        // Kafka fails on a null name with no id (its lookup of the null
        // name throws) and answers the whole request UNKNOWN_SERVER_ERROR.
        if (!rt.name) return respond_error(ctx, req, resp, ErrorCode::kUnknownServerError);
        names.push_back(*rt.name);
      }
    }
  }

  const bool may_create = !all && !by_id && b.settings.auto_create_topics &&
                          (v < 4 || req.allow_auto_topic_creation);
  std::set<std::string> refused;
  bool creates = false;
  if (!all) {
    for (const auto& name : names) {
      const bool creating = would_create(b, name, may_create);
      if (!topic_allowed(b, ctx, security::AclOperation::kDescribe, name) ||
          (creating && !create_allowed(b, ctx, name))) {
        refused.insert(name);
      } else {
        creates = creates || creating;
      }
    }
  }
  auto job = std::make_shared<Job>(
      Job{std::move(resp), std::move(names), all, may_create, topic_ops, std::move(refused)});
  if (!creates) return answer_topics(b, ctx, *job, Creation::kNotHere);  // nothing to create: no wait
  run_admin_job(
      b, "Metadata auto-creation", [&b, ctx, job] { answer_topics(b, ctx, *job, Creation::kCreate); },
      [&b, ctx, job](const Status&) { answer_topics(b, ctx, *job, Creation::kNotHere); });
}

}  // namespace spool::broker
