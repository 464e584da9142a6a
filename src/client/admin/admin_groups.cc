// Admin, groups area: ListGroups on every broker; DescribeGroups,
// OffsetFetch, DeleteGroups, OffsetCommit and OffsetDelete on the group's
// coordinator, retried while it loads or moves (see admin.h).
#include <algorithm>

#include "client/admin/admin_routing.h"
#include "protocol/delete_groups_request.h"
#include "protocol/describe_groups_request.h"
#include "protocol/list_groups_request.h"
#include "protocol/list_groups_response.h"
#include "protocol/offset_commit_request.h"
#include "protocol/offset_delete_request.h"
#include "protocol/offset_fetch_request.h"

namespace spool::client {

using protocol::ErrorCode;

namespace {
constexpr int8_t kGroupKey = 0;
}  // namespace

Result<std::vector<GroupListing>> Admin::list_groups(const std::vector<std::string>& states) {
  if (auto st = refresh_metadata({}); !st) return st;
  std::vector<Node> targets;
  for (const auto& [id, b] : cache_.brokers) targets.push_back(b);
  if (targets.empty()) {
    auto boot = any_node();
    if (!boot) return boot.status();
    targets.push_back(*boot);
  }
  std::map<std::string, GroupListing> merged;
  for (const auto& node : targets) {
    auto fail = [&](const Status& st) {
      return node.id < 0 ? st : Status::error("broker " + std::to_string(node.id) + ": " + st.message(), st.kafka_code());
    };
    protocol::ListGroupsRequest req;
    req.states_filter = states;  // v4+
    auto reply = call<protocol::ListGroupsRequest, protocol::ListGroupsResponse>(node, req);
    if (!reply) return fail(reply.status());
    const bool has_states = reply->version >= 4;
    if (reply->message.error_code != ErrorCode::kNone) return fail(admin_error("ListGroups", reply->message.error_code));
    std::vector<GroupListing> found;
    for (const auto& g : reply->message.groups) {
      found.push_back({g.group_id, has_states ? g.group_state : "", g.protocol_type});
    }
    if (!has_states && !found.empty()) {
      // The broker that lists a group coordinates it: ask it for the states.
      protocol::DescribeGroupsRequest dreq;
      for (const auto& g : found) dreq.groups.push_back(g.group_id);
      auto d = call<protocol::DescribeGroupsRequest, protocol::DescribeGroupsResponse>(node, dreq);
      if (d) {
        for (const auto& dg : d->message.groups) {
          for (auto& g : found) {
            if (g.group_id == dg.group_id && dg.error_code == ErrorCode::kNone) g.state = dg.group_state;
          }
        }
      }
    }
    for (auto& g : found) {
      if (!has_states && !states.empty() && std::find(states.begin(), states.end(), g.state) == states.end()) continue;
      merged[g.group_id] = std::move(g);
    }
  }
  std::vector<GroupListing> out;
  for (auto& [id, g] : merged) out.push_back(std::move(g));
  return out;
}

Result<GroupDescribed> Admin::describe_group(const std::string& group) {
  protocol::DescribeGroupsRequest req;
  req.groups = {group};
  SendOptions opts;
  opts.max_version = 5;  // up to v5 an unknown group reads as state Dead (v6 answers GROUP_ID_NOT_FOUND)
  Node used;
  auto reply = call_retrying<protocol::DescribeGroupsRequest, protocol::DescribeGroupsResponse>(
      [&]() -> Result<Node> {
        auto n = coordinator(kGroupKey, group);
        if (n) used = *n;
        return n;
      },
      req,
      [&](const auto& m) {
        for (const auto& g : m.groups) {
          if (g.group_id == group) return g.error_code;
        }
        return ErrorCode::kNone;
      },
      opts);
  if (!reply) return reply.status();
  for (auto& g : reply->message.groups) {
    if (g.group_id != group) continue;
    if (admin_retriable(g.error_code)) return admin_error("DescribeGroups", g.error_code);
    return GroupDescribed{std::move(g), used};
  }
  return Status::error("DescribeGroups: the broker returned no result for group '" + group + "'");
}

Result<protocol::OffsetFetchResponse> Admin::list_group_offsets(const std::string& group) {
  protocol::OffsetFetchRequest req;
  req.group_id = group;
  req.topics = std::nullopt;  // v2+: every partition with an offset
  SendOptions opts;
  opts.min_version = 2;
  opts.max_version = 7;  // one group by name (v8+ batches groups, v10 names topics by id)
  auto reply = call_retrying<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(
      [&] { return coordinator(kGroupKey, group); }, req,
      [](const auto& m) {
        if (m.error_code != ErrorCode::kNone) return m.error_code;
        for (const auto& t : m.topics) {
          for (const auto& p : t.partitions) {
            if (admin_retriable(p.error_code)) return p.error_code;
          }
        }
        return ErrorCode::kNone;
      },
      opts);
  if (!reply) return reply.status();
  return std::move(reply->message);
}

Result<protocol::DeleteGroupsResponse::DeletableGroupResult> Admin::delete_group(const std::string& group) {
  protocol::DeleteGroupsRequest req;
  req.groups_names = {group};
  auto reply = call_retrying<protocol::DeleteGroupsRequest, protocol::DeleteGroupsResponse>(
      [&] { return coordinator(kGroupKey, group); }, req,
      [&](const auto& m) {
        for (const auto& r : m.results) {
          if (r.group_id == group) return r.error_code;
        }
        return ErrorCode::kNone;
      });
  if (!reply) return reply.status();
  for (auto& r : reply->message.results) {
    if (r.group_id == group) return std::move(r);
  }
  return Status::error("DeleteGroups: the broker returned no result for group '" + group + "'");
}

Result<protocol::OffsetCommitResponse> Admin::alter_group_offsets(const std::string& group,
                                                                  const std::map<TopicPartition, int64_t>& offsets) {
  protocol::OffsetCommitRequest req;
  req.group_id = group;
  req.generation_id_or_member_epoch = -1;  // an admin commit: only accepted while the group is inactive
  req.member_id = "";
  req.retention_time_ms = -1;
  for (const auto& [tp, offset] : offsets) {
    if (req.topics.empty() || req.topics.back().name != tp.first) req.topics.emplace_back().name = tp.first;
    auto& p = req.topics.back().partitions.emplace_back();
    p.partition_index = tp.second;
    p.committed_offset = offset;
    p.committed_metadata = "";
  }
  SendOptions opts;
  opts.min_version = 2;  // generation and member, no per-partition timestamp
  opts.max_version = 9;  // topics by name (v10 names them by id)
  auto reply = call_retrying<protocol::OffsetCommitRequest, protocol::OffsetCommitResponse>(
      [&] { return coordinator(kGroupKey, group); }, req,
      [](const auto& m) {
        for (const auto& t : m.topics) {
          for (const auto& p : t.partitions) {
            if (admin_retriable(p.error_code)) return p.error_code;
          }
        }
        return ErrorCode::kNone;
      },
      opts);
  if (!reply) return reply.status();
  return std::move(reply->message);
}

Result<protocol::OffsetDeleteResponse> Admin::delete_group_offsets(const std::string& group,
                                                                   const std::vector<TopicPartition>& partitions) {
  protocol::OffsetDeleteRequest req;
  req.group_id = group;
  for (const auto& tp : partitions) {
    auto t = std::find_if(req.topics.begin(), req.topics.end(), [&](const auto& x) { return x.name == tp.first; });
    if (t == req.topics.end()) {
      req.topics.emplace_back().name = tp.first;
      t = std::prev(req.topics.end());
    }
    t->partitions.emplace_back().partition_index = tp.second;
  }
  auto reply = call_retrying<protocol::OffsetDeleteRequest, protocol::OffsetDeleteResponse>(
      [&] { return coordinator(kGroupKey, group); }, req, [](const auto& m) { return m.error_code; });
  if (!reply) return reply.status();
  return std::move(reply->message);
}

}  // namespace spool::client
