#include "cli/group_admin.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "protocol/delete_groups_request.h"
#include "protocol/delete_groups_response.h"
#include "protocol/describe_groups_request.h"
#include "protocol/describe_groups_response.h"
#include "protocol/error_code.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/list_groups_request.h"
#include "protocol/list_groups_response.h"
#include "protocol/list_offsets_request.h"
#include "protocol/list_offsets_response.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"
#include "protocol/offset_commit_request.h"
#include "protocol/offset_commit_response.h"
#include "protocol/offset_delete_request.h"
#include "protocol/offset_delete_response.h"
#include "protocol/offset_fetch_request.h"
#include "protocol/offset_fetch_response.h"

namespace spool::cli {
namespace {

namespace proto = spool::protocol;
using client::BlockingClient;
using protocol::ErrorCode;

constexpr auto kRetryBackoff = std::chrono::milliseconds(200);

bool retriable_coordinator_error(ErrorCode code) {
  return code == ErrorCode::kCoordinatorLoadInProgress || code == ErrorCode::kCoordinatorNotAvailable ||
         code == ErrorCode::kNotCoordinator;
}

Status kafka_error(const std::string& what, ErrorCode code) {
  return Status::error(what + ": " + std::string(protocol::error_name(code)), protocol::to_int(code));
}

std::vector<GroupMember> decode_members(const proto::DescribeGroupsResponse::DescribedGroup& g) {
  std::vector<GroupMember> out;
  // Kafka's admin decodes the assignment for "consumer" and for an empty
  // protocol type (a group whose members are all gone keeps no type).
  bool consumer = g.protocol_type == "consumer" || g.protocol_type.empty();
  for (const auto& m : g.members) {
    GroupMember gm;
    gm.member_id = m.member_id;
    gm.group_instance_id = m.group_instance_id;
    gm.client_id = m.client_id;
    gm.host = m.client_host;
    if (consumer) {
      auto a = decode_consumer_assignment(m.member_assignment);
      if (a) gm.assignment = std::move(*a);  // undecodable: shown as no assignment
    }
    out.push_back(std::move(gm));
  }
  return out;
}

}  // namespace

Result<GroupAdmin> GroupAdmin::connect(const std::string& bootstrap, int timeout_ms) {
  GroupAdmin admin(bootstrap, timeout_ms);
  auto c = admin.bootstrap();
  if (!c) return c.status();
  return admin;
}

Result<BlockingClient*> GroupAdmin::client_for(const std::string& host, int32_t port) {
  if (port <= 0 || port > 65535) return Status::error("broker " + host + " has bad port " + std::to_string(port));
  std::string key = host + ":" + std::to_string(port);
  auto it = clients_.find(key);
  if (it != clients_.end()) return it->second.get();
  auto c = BlockingClient::connect(host, static_cast<uint16_t>(port), timeout_ms_);
  if (!c) return Status::error("connecting to " + key + ": " + c.status().message());
  auto owned = std::make_unique<BlockingClient>(std::move(*c));
  BlockingClient* raw = owned.get();
  clients_.emplace(key, std::move(owned));
  return raw;
}

Result<BlockingClient*> GroupAdmin::bootstrap() {
  auto addr = client::parse_host_port(bootstrap_addr_);
  if (!addr) return Status::error("--bootstrap-server: " + addr.status().message());
  return client_for(addr->first, addr->second);
}

Status GroupAdmin::refresh_metadata(const std::vector<std::string>& topics) {
  auto c = bootstrap();
  if (!c) return c.status();
  auto v = (*c)->negotiate<proto::MetadataRequest>();
  if (!v) return v.status();
  proto::MetadataRequest req;
  req.allow_auto_topic_creation = false;
  req.topics = std::vector<proto::MetadataRequest::MetadataRequestTopic>{};
  for (const auto& t : topics) {
    proto::MetadataRequest::MetadataRequestTopic mt;
    mt.name = t;
    req.topics->push_back(std::move(mt));
  }
  auto resp = (*c)->call<proto::MetadataRequest, proto::MetadataResponse>(req, *v);
  if (!resp) return resp.status();
  brokers_.clear();
  for (const auto& b : resp->brokers) brokers_[b.node_id] = BrokerAddress{b.node_id, b.host, b.port};
  for (const auto& t : resp->topics) {
    if (!t.name) continue;  // only an unknown topic id is answered without a name
    topic_errors_[*t.name] = proto::to_int(t.error_code);
    auto& parts = leaders_[*t.name];
    parts.clear();
    for (const auto& p : t.partitions) parts[p.partition_index] = p.leader_id;
  }
  return Status::ok();
}

Result<BrokerAddress> GroupAdmin::find_coordinator(const std::string& group) {
  if (auto it = coordinators_.find(group); it != coordinators_.end()) return it->second;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_);
  while (true) {
    auto c = bootstrap();
    if (!c) return c.status();
    proto::FindCoordinatorRequest req;
    req.key = group;
    req.key_type = 0;  // group
    // v0-3: one key and the top-level answer (v4+ batches keys, KIP-699).
    auto fv = (*c)->negotiate(proto::FindCoordinatorRequest::kApiKey, 0, 3);
    if (!fv) return fv.status();
    auto resp = (*c)->call<proto::FindCoordinatorRequest, proto::FindCoordinatorResponse>(req, *fv);
    if (!resp) return resp.status();
    if (resp->error_code == ErrorCode::kNone) {
      BrokerAddress addr{resp->node_id, resp->host, resp->port};
      coordinators_[group] = addr;
      return addr;
    }
    if (!retriable_coordinator_error(resp->error_code) || std::chrono::steady_clock::now() >= deadline) {
      return kafka_error("finding the coordinator of group '" + group + "'", resp->error_code);
    }
    std::this_thread::sleep_for(kRetryBackoff);
  }
}

template <class Fn>
auto GroupAdmin::with_coordinator(const std::string& group, Fn fn)
    -> decltype(fn(std::declval<BlockingClient&>())) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_);
  while (true) {
    auto coord = find_coordinator(group);
    if (!coord) return coord.status();
    auto c = client_for(coord->host, coord->port);
    if (!c) return c.status();
    auto r = fn(**c);
    if (r || !retriable_coordinator_error(static_cast<ErrorCode>(r.status().kafka_code())) ||
        std::chrono::steady_clock::now() >= deadline) {
      return r;
    }
    coordinators_.erase(group);  // it may have moved
    std::this_thread::sleep_for(kRetryBackoff);
  }
}

Result<std::vector<GroupListing>> GroupAdmin::list_groups(const std::vector<std::string>& states) {
  if (auto st = refresh_metadata({}); !st) return st;
  std::vector<BrokerAddress> targets;
  for (const auto& [id, b] : brokers_) targets.push_back(b);
  std::map<std::string, GroupListing> merged;
  auto list_on = [&](BlockingClient& c) -> Status {
    auto v = c.negotiate<proto::ListGroupsRequest>();
    if (!v) return v.status();
    proto::ListGroupsRequest req;
    if (*v >= 4) req.states_filter = states;
    auto resp = c.call<proto::ListGroupsRequest, proto::ListGroupsResponse>(req, *v);
    if (!resp) return resp.status();
    if (resp->error_code != ErrorCode::kNone) return kafka_error("ListGroups", resp->error_code);
    std::vector<GroupListing> found;
    for (const auto& g : resp->groups) found.push_back({g.group_id, *v >= 4 ? g.group_state : "", g.protocol_type});
    if (*v < 4 && !found.empty()) {
      // The broker that lists a group coordinates it: ask it for the states.
      proto::DescribeGroupsRequest dreq;
      for (const auto& g : found) dreq.groups.push_back(g.group_id);
      auto d = c.call<proto::DescribeGroupsRequest, proto::DescribeGroupsResponse>(dreq);
      if (d) {
        for (const auto& dg : d->groups) {
          for (auto& g : found) {
            if (g.group_id == dg.group_id && dg.error_code == ErrorCode::kNone) g.state = dg.group_state;
          }
        }
      }
    }
    for (auto& g : found) {
      if (*v < 4 && !states.empty() && std::find(states.begin(), states.end(), g.state) == states.end()) continue;
      merged[g.group_id] = std::move(g);
    }
    return Status::ok();
  };
  if (targets.empty()) {
    auto c = bootstrap();
    if (!c) return c.status();
    if (auto st = list_on(**c); !st) return st;
  }
  for (const auto& b : targets) {
    auto c = client_for(b.host, b.port);
    if (!c) return c.status();
    if (auto st = list_on(**c); !st) {
      return Status::error("broker " + std::to_string(b.node_id) + ": " + st.message(), st.kafka_code());
    }
  }
  std::vector<GroupListing> out;
  for (auto& [id, g] : merged) out.push_back(std::move(g));
  return out;
}

Result<GroupDescription> GroupAdmin::describe_group(const std::string& group) {
  auto r = with_coordinator(group, [&](BlockingClient& c) -> Result<GroupDescription> {
    proto::DescribeGroupsRequest req;
    req.groups = {group};
    // Up to v5: an unknown group reads as state Dead (v6 answers GROUP_ID_NOT_FOUND).
    auto dv = c.negotiate(proto::DescribeGroupsRequest::kApiKey, 0, 5);
    if (!dv) return dv.status();
    auto resp = c.call<proto::DescribeGroupsRequest, proto::DescribeGroupsResponse>(req, *dv);
    if (!resp) return resp.status();
    for (const auto& g : resp->groups) {
      if (g.group_id != group) continue;
      if (retriable_coordinator_error(g.error_code)) return kafka_error("DescribeGroups", g.error_code);
      GroupDescription d;
      d.group_id = g.group_id;
      d.error_code = proto::to_int(g.error_code);
      d.state = g.group_state;
      d.protocol_type = g.protocol_type;
      d.protocol = g.protocol_data;
      d.members = decode_members(g);
      return d;
    }
    return Status::error("DescribeGroups: the broker returned no result for group '" + group + "'");
  });
  if (!r) return r;
  if (auto it = coordinators_.find(group); it != coordinators_.end()) {
    r->coordinator_id = it->second.node_id;
    r->coordinator_host = it->second.host;
    r->coordinator_port = it->second.port;
  }
  return r;
}

Result<std::map<TopicPartitionKey, int64_t>> GroupAdmin::committed_offsets(const std::string& group) {
  using Out = std::map<TopicPartitionKey, int64_t>;
  return with_coordinator(group, [&](BlockingClient& c) -> Result<Out> {
    // v2+ takes a null topic list as "every partition with an offset".
    // v2-7: one group by name (v8+ batches groups, v10 names topics by id).
    auto v = c.negotiate(proto::OffsetFetchRequest::kApiKey, 2, 7);
    if (!v) return v.status();
    proto::OffsetFetchRequest req;
    req.group_id = group;
    req.topics = std::nullopt;
    auto resp = c.call<proto::OffsetFetchRequest, proto::OffsetFetchResponse>(req, *v);
    if (!resp) return resp.status();
    if (resp->error_code != ErrorCode::kNone) return kafka_error("OffsetFetch", resp->error_code);
    Out out;
    for (const auto& t : resp->topics) {
      for (const auto& p : t.partitions) {
        if (retriable_coordinator_error(p.error_code)) return kafka_error("OffsetFetch", p.error_code);
        if (p.error_code == ErrorCode::kNone && p.committed_offset >= 0) out[{t.name, p.partition_index}] = p.committed_offset;
      }
    }
    return out;
  });
}

Result<std::vector<int32_t>> GroupAdmin::topic_partitions(const std::string& topic) {
  if (auto st = refresh_metadata({topic}); !st) return st;
  int16_t err = topic_errors_.count(topic) ? topic_errors_[topic]
                                           : static_cast<int16_t>(ErrorCode::kUnknownTopicOrPartition);
  if (err != 0) return kafka_error("topic '" + topic + "'", static_cast<ErrorCode>(err));
  std::vector<int32_t> out;
  for (const auto& [p, leader] : leaders_[topic]) out.push_back(p);
  return out;
}

Result<std::map<TopicPartitionKey, OffsetLookup>> GroupAdmin::list_offsets(
    const std::vector<TopicPartitionKey>& partitions, int64_t timestamp) {
  std::map<TopicPartitionKey, OffsetLookup> out;
  if (partitions.empty()) return out;
  std::set<std::string> topics;
  for (const auto& k : partitions) topics.insert(k.first);
  if (auto st = refresh_metadata({topics.begin(), topics.end()}); !st) return st;

  std::map<int32_t, std::vector<TopicPartitionKey>> by_leader;
  for (const auto& k : partitions) {
    int16_t terr = topic_errors_.count(k.first) ? topic_errors_[k.first]
                                                : static_cast<int16_t>(ErrorCode::kUnknownTopicOrPartition);
    auto& parts = leaders_[k.first];
    auto it = parts.find(k.second);
    if (terr != 0 || it == parts.end()) {
      out[k] = {terr != 0 ? terr : static_cast<int16_t>(ErrorCode::kUnknownTopicOrPartition), -1};
    } else if (it->second < 0 || !brokers_.count(it->second)) {
      out[k] = {static_cast<int16_t>(ErrorCode::kLeaderNotAvailable), -1};
    } else {
      by_leader[it->second].push_back(k);
    }
  }
  for (const auto& [leader, keys] : by_leader) {
    const BrokerAddress& b = brokers_[leader];
    auto c = client_for(b.host, b.port);
    if (!c) return c.status();
    // v0 answers in a different shape (offset arrays); v1+ is what we read.
    auto v = (*c)->negotiate(proto::ListOffsetsRequest::kApiKey, 1, proto::ListOffsetsRequest::kMaxVersion);
    if (!v) return v.status();
    proto::ListOffsetsRequest req;
    req.replica_id = -1;
    req.isolation_level = 0;
    for (const auto& k : keys) {
      auto t = std::find_if(req.topics.begin(), req.topics.end(), [&](const auto& x) { return x.name == k.first; });
      if (t == req.topics.end()) {
        req.topics.emplace_back().name = k.first;
        t = std::prev(req.topics.end());
      }
      auto& p = t->partitions.emplace_back();
      p.partition_index = k.second;
      p.timestamp = timestamp;
    }
    auto resp = (*c)->call<proto::ListOffsetsRequest, proto::ListOffsetsResponse>(req, *v);
    if (!resp) return resp.status();
    for (const auto& t : resp->topics) {
      for (const auto& p : t.partitions) out[{t.name, p.partition_index}] = {proto::to_int(p.error_code), p.offset};
    }
    for (const auto& k : keys) {
      if (!out.count(k)) out[k] = {static_cast<int16_t>(ErrorCode::kUnknownServerError), -1};
    }
  }
  return out;
}

Result<int16_t> GroupAdmin::delete_group(const std::string& group) {
  return with_coordinator(group, [&](BlockingClient& c) -> Result<int16_t> {
    proto::DeleteGroupsRequest req;
    req.groups_names = {group};
    auto resp = c.call<proto::DeleteGroupsRequest, proto::DeleteGroupsResponse>(req);
    if (!resp) return resp.status();
    for (const auto& r : resp->results) {
      if (r.group_id != group) continue;
      if (retriable_coordinator_error(r.error_code)) return kafka_error("DeleteGroups", r.error_code);
      return proto::to_int(r.error_code);
    }
    return Status::error("DeleteGroups: the broker returned no result for group '" + group + "'");
  });
}

Result<std::map<TopicPartitionKey, int16_t>> GroupAdmin::commit_offsets(
    const std::string& group, const std::map<TopicPartitionKey, int64_t>& offsets) {
  using Out = std::map<TopicPartitionKey, int16_t>;
  return with_coordinator(group, [&](BlockingClient& c) -> Result<Out> {
    // v2+: generation/member fields exist, and no per-partition timestamp.
    // Up to v9: topics by name (v10 names them by id).
    auto v = c.negotiate(proto::OffsetCommitRequest::kApiKey, 2, 9);
    if (!v) return v.status();
    proto::OffsetCommitRequest req;
    req.group_id = group;
    req.generation_id_or_member_epoch = -1;  // an admin commit: only accepted while the group is inactive
    req.member_id = "";
    req.retention_time_ms = -1;
    for (const auto& [k, offset] : offsets) {
      if (req.topics.empty() || req.topics.back().name != k.first) req.topics.emplace_back().name = k.first;
      auto& p = req.topics.back().partitions.emplace_back();
      p.partition_index = k.second;
      p.committed_offset = offset;
      p.committed_metadata = "";
    }
    auto resp = c.call<proto::OffsetCommitRequest, proto::OffsetCommitResponse>(req, *v);
    if (!resp) return resp.status();
    Out out;
    for (const auto& t : resp->topics) {
      for (const auto& p : t.partitions) {
        if (retriable_coordinator_error(p.error_code)) return kafka_error("OffsetCommit", p.error_code);
        out[{t.name, p.partition_index}] = proto::to_int(p.error_code);
      }
    }
    for (const auto& [k, offset] : offsets) {
      if (!out.count(k)) out[k] = static_cast<int16_t>(ErrorCode::kUnknownServerError);
    }
    return out;
  });
}

Result<GroupAdmin::OffsetDeleteResult> GroupAdmin::delete_offsets(const std::string& group,
                                                                  const std::vector<TopicPartitionKey>& partitions) {
  return with_coordinator(group, [&](BlockingClient& c) -> Result<OffsetDeleteResult> {
    proto::OffsetDeleteRequest req;
    req.group_id = group;
    for (const auto& k : partitions) {
      auto t = std::find_if(req.topics.begin(), req.topics.end(), [&](const auto& x) { return x.name == k.first; });
      if (t == req.topics.end()) {
        req.topics.emplace_back().name = k.first;
        t = std::prev(req.topics.end());
      }
      t->partitions.emplace_back().partition_index = k.second;
    }
    auto resp = c.call<proto::OffsetDeleteRequest, proto::OffsetDeleteResponse>(req);
    if (!resp) return resp.status();
    if (retriable_coordinator_error(resp->error_code)) return kafka_error("OffsetDelete", resp->error_code);
    OffsetDeleteResult out;
    out.error_code = proto::to_int(resp->error_code);
    for (const auto& t : resp->topics) {
      for (const auto& p : t.partitions) out.partitions[{t.name, p.partition_index}] = proto::to_int(p.error_code);
    }
    return out;
  });
}

}  // namespace spool::cli
