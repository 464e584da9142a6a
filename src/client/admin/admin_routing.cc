// Node choice for Admin: bootstrap, controller, broker by id, partition
// leaders (Metadata) and coordinators (FindCoordinator); see admin.h.
#include <algorithm>
#include <set>
#include <thread>

#include "client/admin/admin_routing.h"
#include "client/host_port.h"
#include "client/network_client.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/metadata_request.h"

namespace spool::client {

using protocol::ErrorCode;

bool admin_retriable(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNotController:
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kLeaderNotAvailable:
    case ErrorCode::kNotCoordinator:
    case ErrorCode::kCoordinatorLoadInProgress:
    case ErrorCode::kCoordinatorNotAvailable:
      return true;
    default:
      return false;
  }
}

Status admin_error(const std::string& what, ErrorCode code) {
  return Status::error(what + ": " + std::string(protocol::error_name(code)), protocol::to_int(code));
}

Admin::Admin(RequestSender& sender, AdminConfig config) : config_(std::move(config)), sender_(sender) {}

Admin::Admin(std::unique_ptr<NetworkClient> owned, AdminConfig config)
    : config_(std::move(config)), owned_(std::move(owned)), sender_(*owned_) {}

Admin::~Admin() = default;

void Admin::forget_routes(ErrorCode code) {
  if (code == ErrorCode::kCoordinatorLoadInProgress) return;
  cache_.known = false;
  cache_.coordinators.clear();
}

void Admin::backoff() const { std::this_thread::sleep_for(std::chrono::milliseconds(config_.retry_backoff_ms)); }

Result<Node> Admin::any_node() {
  if (config_.bootstrap_servers.empty()) return Status::error("bootstrap.servers is empty");
  auto hp = parse_host_port(config_.bootstrap_servers.front());
  if (!hp) return Status::error("bootstrap.servers: " + hp.status().message());
  return Node{-1, hp->first, hp->second};
}

void Admin::absorb(const protocol::MetadataResponse& m) {
  cache_.brokers.clear();
  for (const auto& b : m.brokers) {
    cache_.brokers[b.node_id] = Node{b.node_id, b.host, static_cast<uint16_t>(b.port)};
  }
  cache_.controller_id = m.controller_id;
  for (const auto& t : m.topics) {
    if (!t.name) continue;  // only an unknown topic id is answered without a name
    cache_.topic_errors[*t.name] = protocol::to_int(t.error_code);
    auto& parts = cache_.leaders[*t.name];
    parts.clear();
    for (const auto& p : t.partitions) parts[p.partition_index] = p.leader_id;
  }
  cache_.known = true;
}

Status Admin::refresh_metadata(const std::vector<std::string>& topics) {
  auto m = metadata(topics);
  return m ? Status::ok() : m.status();
}

Result<Node> Admin::broker(int32_t id) {
  if (!cache_.known || !cache_.brokers.count(id)) {
    if (auto st = refresh_metadata({}); !st) return st;
  }
  auto it = cache_.brokers.find(id);
  if (it == cache_.brokers.end()) return Status::error("broker " + std::to_string(id) + " is not live");
  return it->second;
}

Result<Node> Admin::controller() {
  if (!cache_.known) {
    if (auto st = refresh_metadata({}); !st) return st;
  }
  auto it = cache_.brokers.find(cache_.controller_id);
  if (cache_.controller_id < 0 || it == cache_.brokers.end()) return any_node();
  return it->second;
}

Result<Node> Admin::coordinator(int8_t key_type, const std::string& key) {
  if (auto it = cache_.coordinators.find({key_type, key}); it != cache_.coordinators.end()) return it->second;
  const std::string what = std::string("finding the coordinator of ") +
                           (key_type == 0 ? "group '" : "transactional id '") + key + "'";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.default_api_timeout_ms);
  while (true) {
    auto node = any_node();
    if (!node) return node.status();
    protocol::FindCoordinatorRequest req;
    req.key = key;
    req.key_type = key_type;
    // v0-3: one key and the top-level answer (v4+ batches keys, KIP-699);
    // a transactional id needs v1+.
    SendOptions opts;
    opts.min_version = key_type == 0 ? 0 : 1;
    opts.max_version = 3;
    auto resp = call<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(*node, req, opts);
    if (!resp) return resp.status();
    const auto& m = resp->message;
    if (m.error_code == ErrorCode::kNone) {
      Node found{m.node_id, m.host, static_cast<uint16_t>(m.port)};
      cache_.coordinators[{key_type, key}] = found;
      return found;
    }
    if (!admin_retriable(m.error_code) || std::chrono::steady_clock::now() >= deadline) {
      return admin_error(what, m.error_code);
    }
    backoff();
  }
}

Result<Admin::LeaderSplit> Admin::split_by_leader(const std::vector<TopicPartition>& partitions) {
  std::set<std::string> topics;
  for (const auto& tp : partitions) topics.insert(tp.first);
  if (auto st = refresh_metadata({topics.begin(), topics.end()}); !st) return st;
  LeaderSplit out;
  for (const auto& tp : partitions) {
    auto terr = cache_.topic_errors.find(tp.first);
    const int16_t topic_error =
        terr == cache_.topic_errors.end() ? protocol::to_int(ErrorCode::kUnknownTopicOrPartition) : terr->second;
    const auto& parts = cache_.leaders[tp.first];
    auto it = parts.find(tp.second);
    if (topic_error != 0) {
      out.errors[tp] = static_cast<ErrorCode>(topic_error);
    } else if (it == parts.end()) {
      out.errors[tp] = ErrorCode::kUnknownTopicOrPartition;
    } else if (it->second < 0 || !cache_.brokers.count(it->second)) {
      out.errors[tp] = ErrorCode::kLeaderNotAvailable;
    } else {
      out.by_leader[it->second].push_back(tp);
    }
  }
  return out;
}

}  // namespace spool::client
