// DescribeTopicPartitions v0 (KIP-966): Metadata's topic part with paging.
// - Topics by name (deduplicated), or every topic when the list is empty;
//   answered in name order, skipping names below Cursor.TopicName.
// - A cursor whose topic is not among the requested names, or whose
//   partition is negative, is INVALID_REQUEST: every requested topic is
//   answered with it, with no partitions and no NextCursor (Kafka's error
//   answer).
// - At most max(min(ResponsePartitionLimit, 2000), 1) partitions (2000 is
//   Kafka's max.request.partition.size.limit default); the cursor topic
//   starts at Cursor.PartitionIndex, others at 0. When a topic's partitions
//   do not all fit, NextCursor is (that topic, first partition left out);
//   when the limit is used up exactly and topics remain, (next topic, 0) -
//   even if that topic turns out not to exist, as Kafka.
// - A requested topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION, or
//   INVALID_TOPIC_EXCEPTION for an illegal name; it uses no partitions of
//   the limit. (When listing every topic, a topic deleted meanwhile is left
//   out.)
// - Per partition: this broker as leader and only replica and ISR, the
//   partition's leader epoch, no eligible leader replicas or last known ELR
//   (empty lists), no offline replicas. TopicAuthorizedOperations: the topic
//   operations the principal is allowed (all of them without an
//   authorizer). With an authorizer, a topic without DESCRIBE is left out of
//   the all-topics form and answers TOPIC_AUTHORIZATION_FAILED when named.
// - Cluster mode: topics, leaders, leader epochs, replicas, ISR and offline
//   replicas from the metadata cache (LEADER_NOT_AVAILABLE while leaderless);
//   ELR lists stay empty (a ZooKeeper-mode cluster has no ELR).
#include <algorithm>
#include <set>
#include <string>

#include "broker/handlers/authorize.h"
#include "broker/cluster_member.h"
#include "broker/handlers/handlers.h"
#include "cluster/metadata_cache.h"
#include "broker/topic_name.h"
#include "protocol/describe_topic_partitions_request.h"
#include "protocol/describe_topic_partitions_response.h"
#include "protocol/error_code.h"

namespace spool::broker {

using protocol::ErrorCode;
using Resp = protocol::DescribeTopicPartitionsResponse;

namespace {
constexpr int32_t kMaxRequestPartitionSizeLimit = 2000;
}  // namespace

void handle_describe_topic_partitions(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DescribeTopicPartitionsRequest req;
  if (!decode_or_close(ctx, body, req, "DescribeTopicPartitions")) return;
  const bool all = req.topics.empty();
  const std::string cursor_topic = req.cursor ? req.cursor->topic_name : "";

  std::set<std::string> names;  // sorted, as Kafka answers
  // Cluster mode: topics and partitions as the metadata cache shows them.
  const bool cluster_mode = b.cluster != nullptr && b.metadata != nullptr;
  auto lookup = [&b, cluster_mode](const std::string& name) -> std::optional<TopicInfo> {
    if (!cluster_mode) return b.replicas.topic(name);
    auto parts = b.metadata->topic_partitions(name);
    if (parts.empty()) return std::nullopt;
    TopicInfo info;
    info.name = name;
    info.id = parts.front().topic_id;
    info.partitions = static_cast<int32_t>(parts.size());
    return info;
  };
  if (all && cluster_mode) {
    for (const auto& name : b.metadata->topics())
      if (name >= cursor_topic) names.insert(name);
  } else if (all) {
    for (const auto& info : b.replicas.topics())
      if (info.name >= cursor_topic) names.insert(info.name);
  } else {
    for (const auto& t : req.topics)
      if (t.name >= cursor_topic) names.insert(t.name);
  }
  Resp resp;
  if ((req.cursor && !all && !names.count(cursor_topic)) || (req.cursor && req.cursor->partition_index < 0)) {
    for (const auto& t : req.topics) {
      auto& rt = resp.topics.emplace_back();
      rt.error_code = ErrorCode::kInvalidRequest;
      rt.name = t.name;
    }
    ctx.respond(resp);
    return;
  }

  int32_t remaining = std::max(std::min(kMaxRequestPartitionSizeLimit, req.response_partition_limit), 1);
  for (const auto& name : names) {
    if (remaining == 0) {
      resp.next_cursor = Resp::Cursor{name, 0};
      break;
    }
    if (!topic_allowed(b, ctx, security::AclOperation::kDescribe, name)) {  // Kafka's check
      if (all) continue;
      auto& rt = resp.topics.emplace_back();
      rt.error_code = ErrorCode::kTopicAuthorizationFailed;
      rt.name = name;
      continue;
    }
    auto info = lookup(name);
    if (!info) {
      if (all) continue;
      auto& rt = resp.topics.emplace_back();
      rt.error_code = is_valid_topic_name(name) ? ErrorCode::kUnknownTopicOrPartition
                                                : ErrorCode::kInvalidTopicException;
      rt.name = name;
      rt.is_internal = is_internal_topic(name);
      rt.topic_authorized_operations = topic_authorized_operations(b, ctx, name);
      continue;
    }
    auto& rt = resp.topics.emplace_back();
    rt.error_code = ErrorCode::kNone;
    rt.name = name;
    rt.topic_id = info->id;
    rt.is_internal = is_internal_topic(name);
    rt.topic_authorized_operations = topic_authorized_operations(b, ctx, name);
    const int32_t start = (req.cursor && name == cursor_topic) ? req.cursor->partition_index : 0;
    const int64_t upper = std::min<int64_t>(info->partitions, int64_t{start} + remaining);
    for (int32_t p = start; p < upper; ++p) {
      auto& part = rt.partitions.emplace_back();
      if (cluster_mode) {
        auto view = b.metadata->describe_partition(TopicPartition{name, p});
        part.partition_index = p;
        part.error_code = view ? static_cast<ErrorCode>(view->error_code) : ErrorCode::kUnknownTopicOrPartition;
        if (view) {
          part.leader_id = view->leader;
          part.leader_epoch = view->leader_epoch;
          part.replica_nodes = view->replicas;
          part.isr_nodes = view->isr;
          part.offline_replicas = view->offline_replicas;
        }
        part.eligible_leader_replicas.emplace();
        part.last_known_elr.emplace();
        continue;
      }
      auto partition = b.replicas.partition(name, p);
      part.error_code = ErrorCode::kNone;
      part.partition_index = p;
      part.leader_id = b.settings.broker_id;
      part.leader_epoch = partition ? partition->leader_epoch() : 0;
      part.replica_nodes = {b.settings.broker_id};
      part.isr_nodes = {b.settings.broker_id};
      part.eligible_leader_replicas.emplace();
      part.last_known_elr.emplace();
    }
    if (upper < info->partitions) {
      resp.next_cursor = Resp::Cursor{name, static_cast<int32_t>(upper)};
      break;
    }
    remaining -= static_cast<int32_t>(rt.partitions.size());
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
