// Metadata v0-13 on a cluster member, from the metadata cache (Kafka's
// ZkMetadataCache answers): the live brokers on the listener the request
// came in on, the controller id the controller last sent (-1 unknown), the
// cluster id, and per partition leader, leader epoch, replicas, ISR and
// offline replicas; LEADER_NOT_AVAILABLE with leader -1 while a partition
// has no live leader. A topic the cache does not know is auto-created when
// allowed (written to ZooKeeper on the admin executor) and answered
// LEADER_NOT_AVAILABLE at once, as Kafka does; clients retry. The request
// rules per version are those of metadata.cc (null/empty lists, v10-11 ids
// refused, v12 lookups by id, v13 top-level error), and so are the
// authorizer's checks.
#include <spdlog/spdlog.h>

#include <set>

#include "broker/cluster_member.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/cluster_handlers.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_name.h"
#include "protocol/error_code.h"

namespace spool::broker {

using protocol::ErrorCode;
using Resp = protocol::MetadataResponse;

std::vector<Resp::MetadataResponseTopic::MetadataResponsePartition> cluster_partitions(BrokerContext& b,
                                                                                       const std::string& topic,
                                                                                       const std::string& listener,
                                                                                       int16_t version) {
  std::vector<Resp::MetadataResponseTopic::MetadataResponsePartition> out;
  for (const auto& pm : b.metadata->topic_partitions(topic)) {
    auto view = b.metadata->describe_partition(pm.tp);
    if (!view) continue;
    auto& p = out.emplace_back();
    p.partition_index = pm.tp.partition;
    p.error_code = static_cast<ErrorCode>(view->error_code);
    p.leader_id = view->leader;
    p.leader_epoch = view->leader_epoch;
    p.replica_nodes = view->replicas;
    p.isr_nodes = view->isr;
    p.offline_replicas = view->offline_replicas;
    if (view->leader >= 0 && !b.metadata->endpoint(view->leader, listener)) {
      p.error_code = version >= 6 ? ErrorCode::kListenerNotFound : ErrorCode::kLeaderNotAvailable;
      p.leader_id = -1;
    }
  }
  return out;
}

bool cluster_broker_endpoint(BrokerContext& b, int32_t id, const std::string& listener, std::string* host,
                             int32_t* port) {
  auto ep = b.metadata->endpoint(id, listener);
  if (!ep) return false;
  *host = ep->host;
  *port = ep->port;
  return true;
}

namespace {

void describe_cached(BrokerContext& b, const RequestContext& ctx, const std::string& name,
                     Resp::MetadataResponseTopic& t) {
  t.error_code = ErrorCode::kNone;
  t.name = name;
  auto parts = b.metadata->topic_partitions(name);
  if (!parts.empty()) t.topic_id = parts.front().topic_id;
  t.is_internal = is_internal_topic(name);
  t.partitions = cluster_partitions(b, name, ctx.listener_name, ctx.version());
}

}  // namespace

void cluster_metadata(BrokerContext& b, const RequestContext& ctx, const protocol::MetadataRequest& req) {
  const int16_t v = ctx.version();
  const protocol::Uuid kNoId{};
  Resp resp;
  for (const auto& lb : b.metadata->live_brokers()) {
    for (const auto& ep : lb.endpoints) {
      if (ep.listener != ctx.listener_name) continue;
      auto& broker = resp.brokers.emplace_back();
      broker.node_id = lb.id;
      broker.host = ep.host;
      broker.port = ep.port;
      broker.rack = lb.rack;
    }
  }
  resp.cluster_id = b.cluster->cluster_id();
  resp.controller_id = b.metadata->controller_id();
  resp.error_code = ErrorCode::kNone;
  auto fail = [&](ErrorCode e) {
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
  };

  const bool all = !req.topics.has_value() || (v == 0 && req.topics->empty());
  if (!all && v < 12) {
    for (const auto& rt : *req.topics) {
      if (!rt.name || rt.topic_id != kNoId) return fail(ErrorCode::kInvalidRequest);
    }
  }
  const bool topic_ops = v >= 8 && req.include_topic_authorized_operations;
  if (v >= 8 && v <= 10 && req.include_cluster_authorized_operations)
    resp.cluster_authorized_operations = cluster_authorized_operations(b, ctx);

  std::vector<std::string> names;
  bool by_id = false;
  if (all) {
    for (std::string& name : b.metadata->topics()) {
      if (topic_allowed(b, ctx, security::AclOperation::kDescribe, name)) names.push_back(std::move(name));
    }
  } else {
    std::set<protocol::Uuid> ids_seen;
    for (const auto& rt : *req.topics) {
      if (rt.topic_id == kNoId || !ids_seen.insert(rt.topic_id).second) continue;
      if (auto name = b.metadata->topic_name(rt.topic_id)) {
        names.push_back(*name);
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
        if (!rt.name) return fail(ErrorCode::kUnknownServerError);
        names.push_back(*rt.name);
      }
    }
  }
  const bool may_create =
      !all && !by_id && b.settings.auto_create_topics && (v < 4 || req.allow_auto_topic_creation);
  std::set<std::string> answered;
  for (const auto& name : names) {
    if (!answered.insert(name).second) continue;
    auto& t = resp.topics.emplace_back();
    t.name = name;
    const bool known = b.metadata->contains_topic(name);
    const bool creating =
        !known && is_valid_topic_name(name) &&
        ((may_create && !is_internal_topic(name)) || (name == kConsumerOffsetsTopic && b.groups != nullptr));
    if (!all && (!topic_allowed(b, ctx, security::AclOperation::kDescribe, name) ||
                 (creating && !create_allowed(b, ctx, name)))) {
      t.error_code = ErrorCode::kTopicAuthorizationFailed;
      continue;
    }
    if (known) {
      describe_cached(b, ctx, name, t);
    } else if (!is_valid_topic_name(name)) {
      t.error_code = ErrorCode::kInvalidTopicException;
    } else if (creating) {
      cluster_auto_create(b, name);
      t.error_code = ErrorCode::kLeaderNotAvailable;
    } else {
      t.error_code = ErrorCode::kUnknownTopicOrPartition;
    }
    if (topic_ops) t.topic_authorized_operations = topic_authorized_operations(b, ctx, name);
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
