#include "client/client_metadata.h"

#include "client/host_port.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "protocol/error_code.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"

namespace spool::client {

using protocol::ErrorCode;

std::vector<Node> bootstrap_nodes(const std::vector<std::string>& servers) {
  std::vector<Node> out;
  for (const std::string& s : servers) {
    auto hp = parse_host_port(s);
    if (hp) out.push_back(Node{-1, hp->first, hp->second});
  }
  return out;
}

const Node* MetadataSnapshot::broker(int32_t id) const {
  auto it = brokers.find(id);
  return it == brokers.end() ? nullptr : &it->second;
}

const TopicMetadata* MetadataSnapshot::topic(const std::string& name) const {
  auto it = topics.find(name);
  return it == topics.end() ? nullptr : &it->second;
}

const Node* MetadataSnapshot::leader(const std::string& topic_name, int32_t partition) const {
  const TopicMetadata* t = topic(topic_name);
  if (t == nullptr || partition < 0 || static_cast<size_t>(partition) >= t->partitions.size()) return nullptr;
  return broker(t->partitions[static_cast<size_t>(partition)].leader);
}

ClientMetadata::ClientMetadata(ClientMetadataOptions options)
    : options_(std::move(options)),
      clock_(options_.clock ? options_.clock : system_clock()),
      snap_(std::make_shared<MetadataSnapshot>()) {}

std::shared_ptr<const MetadataSnapshot> ClientMetadata::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return snap_;
}

void ClientMetadata::add_topic(const std::string& topic) {
  std::lock_guard<std::mutex> lock(mu_);
  if (topics_.insert(topic).second) update_requested_ = true;
}

void ClientMetadata::request_update() {
  std::lock_guard<std::mutex> lock(mu_);
  update_requested_ = true;
}

void ClientMetadata::set_fetch_all_topics(bool all) {
  std::lock_guard<std::mutex> lock(mu_);
  if (all && !all_topics_) update_requested_ = true;
  all_topics_ = all;
}

void ClientMetadata::close(const Status& why) {
  std::lock_guard<std::mutex> lock(mu_);
  is_closed_ = true;
  closed_ = why;
  cv_.notify_all();
}

Result<int32_t> ClientMetadata::await_topic(const std::string& topic, int64_t max_wait_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  if (const TopicMetadata* t = snap_->topic(topic); t != nullptr && !t->partitions.empty() && !is_closed_) {
    return static_cast<int32_t>(t->partitions.size());  // the usual case: no clock, no wait
  }
  const int64_t start = clock_->monotonic_ms();
  if (topics_.insert(topic).second) update_requested_ = true;
  while (true) {
    if (is_closed_) return closed_;
    const TopicMetadata* t = snap_->topic(topic);
    if (t != nullptr && !t->partitions.empty()) return static_cast<int32_t>(t->partitions.size());
    if (t != nullptr && t->error != 0 && t->error != protocol::to_int(ErrorCode::kUnknownTopicOrPartition) &&
        t->error != protocol::to_int(ErrorCode::kLeaderNotAvailable)) {
      const auto code = static_cast<ErrorCode>(t->error);
      return Status::error("topic " + topic + ": " + std::string(protocol::error_name(code)), t->error);
    }
    const int64_t waited = clock_->monotonic_ms() - start;
    if (waited >= max_wait_ms) {
      return Status::error("Topic " + topic + " not present in metadata after " + std::to_string(max_wait_ms) + " ms.",
                           protocol::to_int(ErrorCode::kRequestTimedOut));
    }
    update_requested_ = true;
    cv_.wait_for(lock, std::chrono::milliseconds(std::min<int64_t>(max_wait_ms - waited, 50)));
  }
}

int64_t ClientMetadata::poll(RequestSender& sender) {
  const int64_t now = clock_->monotonic_ms();
  Node node;
  protocol::MetadataRequest req;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (is_closed_ || in_flight_) return options_.retry_backoff_ms;
    const bool stale = last_refresh_ms_ < 0 || now - last_refresh_ms_ >= options_.max_age_ms;
    if (!update_requested_ && !stale) return options_.max_age_ms - (now - last_refresh_ms_);
    if (now < next_attempt_ms_) return next_attempt_ms_ - now;
    // A known broker, else a bootstrap address; rotating after failures.
    std::vector<Node> nodes;
    for (const auto& [id, n] : snap_->brokers) nodes.push_back(n);
    if (nodes.empty()) nodes = options_.bootstrap;
    if (nodes.empty()) return options_.retry_backoff_ms;
    node = nodes[next_node_ % nodes.size()];
    req.allow_auto_topic_creation = options_.allow_auto_topic_creation;
    if (!all_topics_) {
      req.topics.emplace();
      for (const std::string& t : topics_) {
        protocol::MetadataRequest::MetadataRequestTopic mt;
        mt.name = t;
        req.topics->push_back(std::move(mt));
      }
    }
    in_flight_ = true;
    update_requested_ = false;
  }
  send_request<protocol::MetadataRequest, protocol::MetadataResponse>(
      sender, node, std::move(req), [this, node](Result<Reply<protocol::MetadataResponse>> r) {
        std::lock_guard<std::mutex> lock(mu_);
        in_flight_ = false;
        if (!r) {
          spdlog::debug("client: metadata request to {}:{} failed: {}", node.host, node.port, r.status().message());
          update_requested_ = true;
          ++next_node_;
          next_attempt_ms_ = clock_->monotonic_ms() + options_.retry_backoff_ms;
          return;
        }
        const auto& m = r->message;
        auto next = std::make_shared<MetadataSnapshot>();
        next->version = snap_->version + 1;
        next->cluster_id = m.cluster_id.value_or("");
        next->controller_id = m.controller_id;
        for (const auto& b : m.brokers) {
          if (b.port <= 0 || b.port > 65535) continue;
          next->brokers[b.node_id] = Node{b.node_id, b.host, static_cast<uint16_t>(b.port)};
        }
        bool missing = false;
        for (const auto& t : m.topics) {
          if (!t.name) continue;
          TopicMetadata tm;
          tm.error = protocol::to_int(t.error_code);
          tm.id = t.topic_id;
          int32_t max_index = -1;
          for (const auto& p : t.partitions) max_index = std::max(max_index, p.partition_index);
          // A gap (a partition missing from the answer) leaves its leader unknown.
          if (max_index >= 0 && max_index < 1 << 20) tm.partitions.resize(static_cast<size_t>(max_index) + 1);
          for (const auto& p : t.partitions) {
            if (p.partition_index < 0 || p.partition_index > max_index || max_index >= 1 << 20) continue;
            auto& pm = tm.partitions[static_cast<size_t>(p.partition_index)];
            pm.leader = p.leader_id;
            pm.leader_epoch = p.leader_epoch;
            if (pm.leader < 0 || next->brokers.count(pm.leader) == 0) missing = true;
          }
          if (tm.partitions.empty()) missing = true;
          next->topics[*t.name] = std::move(tm);
        }
        snap_ = std::move(next);
        last_refresh_ms_ = clock_->monotonic_ms();
        // Unknown leaders or topics still being created: ask again after the backoff.
        if (missing) update_requested_ = true;
        next_attempt_ms_ = last_refresh_ms_ + options_.retry_backoff_ms;
        cv_.notify_all();
      });
  return options_.retry_backoff_ms;
}

}  // namespace spool::client
