// OffsetFetch v1-10 and OffsetDelete v0 (classic groups).
// OffsetFetch: a partition without a committed offset answers offset -1,
// metadata "" and NONE (Kafka's INVALID_OFFSET / NO_METADATA), also for a
// group that does not exist; a null topic list (v2+) asks for every
// committed partition of the group.
//  * v1-7 name one group. A group-level error (NOT_COORDINATOR,
//    COORDINATOR_LOAD_IN_PROGRESS, ...) goes in the top-level error_code with
//    no topics from v2 on; v1 has no such field, so there every requested
//    partition carries it (Kafka's getErrorResponse).
//  * v7 RequireStable: a requested partition with a pending commit answers
//    UNSTABLE_OFFSET_COMMIT (from v8 for every group of the request).
//  * v8 (KIP-709) names several groups and answers one Groups entry per
//    group, in request order, each with its own error code (a group-level
//    error answers that group with no topics).
//  * v9 adds MemberId/MemberEpoch, which Kafka validates only for KIP-848
//    consumer groups; Spool's groups are classic, so they are ignored.
//  * v10 names topics by TopicId (resolved through the topic registry): an
//    id no topic has answers UNKNOWN_TOPIC_ID for each requested partition;
//    in the all-topics form, committed topics that no longer exist (no id)
//    are left out, as Kafka cannot name them.
// OffsetDelete: partitions of unknown topics get UNKNOWN_TOPIC_OR_PARTITION;
// a group-level error answers the error alone.
// With an authorizer (Kafka's checks), OffsetFetch needs DESCRIBE on the
// group (else the group-level GROUP_AUTHORIZATION_FAILED); a requested topic
// without DESCRIBE answers TOPIC_AUTHORIZATION_FAILED for its partitions,
// and the all-topics form leaves such topics out.
#include <map>
#include <set>
#include <memory>

#include "broker/group_service.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/group_common.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_lookup.h"
#include "protocol/offset_delete_request.h"
#include "protocol/offset_delete_response.h"
#include "protocol/offset_fetch_request.h"
#include "protocol/offset_fetch_response.h"

namespace spool::broker {

using protocol::ErrorCode;
using security::AclOperation;

namespace {

using FetchTopic = protocol::OffsetFetchResponse::OffsetFetchResponseTopic;
using FetchPartition = FetchTopic::OffsetFetchResponsePartition;

FetchPartition fetch_partition(int32_t index, int64_t offset, int32_t epoch, std::optional<std::string> metadata,
                               ErrorCode error) {
  FetchPartition p;
  p.partition_index = index;
  p.committed_offset = offset;
  p.committed_leader_epoch = epoch;
  p.metadata = metadata.value_or("");
  p.error_code = error;
  return p;
}

// v0-1 answer to a group-level error: each requested partition carries it.
protocol::OffsetFetchResponse partition_level_error(const protocol::OffsetFetchRequest& req, ErrorCode error) {
  protocol::OffsetFetchResponse resp;
  if (req.topics) {
    for (const auto& t : *req.topics) {
      auto& rt = resp.topics.emplace_back();
      rt.name = t.name;
      for (int32_t index : t.partition_indexes) rt.partitions.push_back(fetch_partition(index, -1, -1, "", error));
    }
  }
  return resp;
}

}  // namespace

namespace {

using GroupTopic = protocol::OffsetFetchResponse::OffsetFetchResponseTopics;
using GroupPartition = protocol::OffsetFetchResponse::OffsetFetchResponsePartitions;

GroupPartition group_partition(int32_t index, int64_t offset, int32_t epoch, std::optional<std::string> metadata,
                               ErrorCode error) {
  GroupPartition p;
  p.partition_index = index;
  p.committed_offset = offset;
  p.committed_leader_epoch = epoch;
  p.metadata = metadata.value_or("");
  p.error_code = error;
  return p;
}

// One group of a v8+ request.
protocol::OffsetFetchResponse::OffsetFetchResponseGroup fetch_group(
    BrokerContext& b, const RequestContext& ctx, protocol::OffsetFetchRequest::OffsetFetchRequestGroup& g,
    bool use_ids, bool require_stable) {
  protocol::OffsetFetchResponse::OffsetFetchResponseGroup out;
  out.group_id = g.group_id;
  if (!group_allowed(b, ctx, AclOperation::kDescribe, g.group_id)) {
    out.error_code = ErrorCode::kGroupAuthorizationFailed;
    return out;
  }
  if (b.groups == nullptr) {
    out.error_code = ErrorCode::kCoordinatorNotAvailable;
    return out;
  }
  // Per requested topic: its name (resolved from the id from v10), or an
  // error for all its partitions.
  std::vector<ErrorCode> topic_errors;
  std::optional<std::vector<coordinator::TopicPartitionKey>> wanted;
  if (g.topics) {
    wanted.emplace();
    for (auto& t : *g.topics) {
      ErrorCode e = ErrorCode::kNone;
      if (use_ids) {
        auto name = topic_name_by_id(b, t.topic_id);
        if (name) {
          t.name = *name;
        } else {
          e = ErrorCode::kUnknownTopicId;
        }
      }
      if (e == ErrorCode::kNone && !topic_allowed(b, ctx, AclOperation::kDescribe, t.name)) {
        e = ErrorCode::kTopicAuthorizationFailed;
      }
      topic_errors.push_back(e);
      if (e != ErrorCode::kNone) continue;
      for (int32_t index : t.partition_indexes) wanted->push_back({t.name, index});
    }
  }
  auto result = b.groups->coordinator().fetch_offsets(g.group_id, wanted, require_stable);
  if (result.error != ErrorCode::kNone) {
    out.error_code = result.error;
    return out;
  }
  std::map<coordinator::TopicPartitionKey, const coordinator::CommittedOffset*> found;
  for (const auto& o : result.offsets) found.emplace(o.tp, &o);
  if (g.topics) {
    for (size_t i = 0; i < g.topics->size(); ++i) {
      const auto& t = (*g.topics)[i];
      auto& rt = out.topics.emplace_back();
      rt.name = t.name;
      rt.topic_id = t.topic_id;
      for (int32_t index : t.partition_indexes) {
        auto it = topic_errors[i] == ErrorCode::kNone ? found.find({t.name, index}) : found.end();
        if (it == found.end()) {
          rt.partitions.push_back(group_partition(index, -1, -1, "", topic_errors[i]));
        } else {
          const auto& o = *it->second;
          rt.partitions.push_back(group_partition(index, o.offset, o.leader_epoch, o.metadata, o.error));
        }
      }
    }
    return out;
  }
  // All committed partitions, grouped by topic (the map keeps them sorted).
  const std::string* current = nullptr;
  bool current_skipped = false;
  for (const auto& [tp, o] : found) {
    if (current == nullptr || *current != tp.topic) {
      current = &tp.topic;
      TopicId id{};
      current_skipped = !topic_allowed(b, ctx, AclOperation::kDescribe, tp.topic);
      if (current_skipped) continue;
      if (use_ids) {
        auto info = b.registry.get(tp.topic);
        current_skipped = !info;
        if (current_skipped) continue;
        id = info->id;
      }
      auto& rt = out.topics.emplace_back();
      rt.name = tp.topic;
      rt.topic_id = id;
    } else if (current_skipped) {
      continue;
    }
    out.topics.back().partitions.push_back(
        group_partition(tp.partition, o->offset, o->leader_epoch, o->metadata, o->error));
  }
  return out;
}

void handle_offset_fetch_groups(BrokerContext& b, const RequestContext& ctx, protocol::OffsetFetchRequest& req) {
  protocol::OffsetFetchResponse resp;
  resp.groups.reserve(req.groups.size());
  for (auto& g : req.groups) resp.groups.push_back(fetch_group(b, ctx, g, ctx.version() >= 10, req.require_stable));
  ctx.respond(resp);
}

}  // namespace

void handle_offset_fetch(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::OffsetFetchRequest req;
  if (!decode_or_close(ctx, body, req, "OffsetFetch")) return;
  const int16_t v = ctx.version();
  if (v >= 8) return handle_offset_fetch_groups(b, ctx, req);
  auto group_error = [&](ErrorCode e) {
    if (v < 2) {
      ctx.respond(partition_level_error(req, e));
      return;
    }
    protocol::OffsetFetchResponse resp;
    resp.error_code = e;
    ctx.respond(resp);
  };
  if (!group_allowed(b, ctx, AclOperation::kDescribe, req.group_id)) {
    return group_error(ErrorCode::kGroupAuthorizationFailed);
  }
  if (b.groups == nullptr) return group_error(ErrorCode::kCoordinatorNotAvailable);

  std::optional<std::vector<coordinator::TopicPartitionKey>> wanted;
  std::set<std::string> refused;  // requested topics without DESCRIBE
  if (req.topics) {
    wanted.emplace();
    for (const auto& t : *req.topics) {
      if (!topic_allowed(b, ctx, AclOperation::kDescribe, t.name)) {
        refused.insert(t.name);
        continue;
      }
      for (int32_t index : t.partition_indexes) wanted->push_back({t.name, index});
    }
  }
  auto result = b.groups->coordinator().fetch_offsets(req.group_id, wanted, v >= 7 && req.require_stable);
  if (result.error != ErrorCode::kNone) return group_error(result.error);

  protocol::OffsetFetchResponse resp;
  resp.error_code = ErrorCode::kNone;
  std::map<coordinator::TopicPartitionKey, const coordinator::CommittedOffset*> found;
  for (const auto& o : result.offsets) found.emplace(o.tp, &o);
  if (req.topics) {
    // Request order, every requested partition answered.
    for (const auto& t : *req.topics) {
      auto& rt = resp.topics.emplace_back();
      rt.name = t.name;
      const ErrorCode topic_error =
          refused.count(t.name) > 0 ? ErrorCode::kTopicAuthorizationFailed : ErrorCode::kNone;
      for (int32_t index : t.partition_indexes) {
        auto it = topic_error == ErrorCode::kNone ? found.find({t.name, index}) : found.end();
        if (it == found.end()) {
          rt.partitions.push_back(fetch_partition(index, -1, -1, "", topic_error));
        } else {
          const auto& o = *it->second;
          rt.partitions.push_back(fetch_partition(index, o.offset, o.leader_epoch, o.metadata, o.error));
        }
      }
    }
  } else {
    // All committed partitions, grouped by topic (the map keeps them sorted).
    for (const auto& [tp, o] : found) {
      if (!topic_allowed(b, ctx, AclOperation::kDescribe, tp.topic)) continue;
      if (resp.topics.empty() || resp.topics.back().name != tp.topic) resp.topics.emplace_back().name = tp.topic;
      resp.topics.back().partitions.push_back(
          fetch_partition(tp.partition, o->offset, o->leader_epoch, o->metadata, o->error));
    }
  }
  ctx.respond(resp);
}

void handle_offset_delete(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::OffsetDeleteRequest req;
  if (!decode_or_close(ctx, body, req, "OffsetDelete")) return;
  auto resp = std::make_shared<protocol::OffsetDeleteResponse>();
  if (!group_allowed(b, ctx, AclOperation::kDelete, req.group_id)) {  // Kafka's check
    resp->error_code = ErrorCode::kGroupAuthorizationFailed;
    ctx.respond(*resp);
    return;
  }
  if (b.groups == nullptr) {
    resp->error_code = ErrorCode::kCoordinatorNotAvailable;
    ctx.respond(*resp);
    return;
  }
  std::vector<coordinator::TopicPartitionKey> to_delete;
  std::multimap<coordinator::TopicPartitionKey, std::pair<size_t, size_t>> slots;
  for (const auto& t : req.topics) {
    auto& rt = resp->topics.emplace_back();
    rt.name = t.name;
    for (const auto& part : t.partitions) {
      auto& rp = rt.partitions.emplace_back();
      rp.partition_index = part.partition_index;
      if (!topic_allowed(b, ctx, AclOperation::kRead, t.name)) {
        rp.error_code = ErrorCode::kTopicAuthorizationFailed;
        continue;
      }
      if (!partition_exists(b, t.name, part.partition_index)) {
        rp.error_code = ErrorCode::kUnknownTopicOrPartition;
        continue;
      }
      coordinator::TopicPartitionKey tp{t.name, part.partition_index};
      slots.emplace(tp, std::make_pair(resp->topics.size() - 1, rt.partitions.size() - 1));
      to_delete.push_back(std::move(tp));
    }
  }
  b.groups->coordinator().delete_offsets(
      req.group_id, to_delete,
      [ctx, resp, slots = std::move(slots)](ErrorCode group_error, coordinator::PartitionErrors errors) {
        if (group_error != ErrorCode::kNone) {
          protocol::OffsetDeleteResponse err;
          err.error_code = group_error;
          ctx.respond(err);
          return;
        }
        for (const auto& [tp, e] : errors) {
          auto [lo, hi] = slots.equal_range(tp);
          for (auto it = lo; it != hi; ++it)
            resp->topics[it->second.first].partitions[it->second.second].error_code = e;
        }
        ctx.respond(*resp);
      });
}

}  // namespace spool::broker
