#include "broker/txn_marker_sender.h"

#include <map>
#include <mutex>

#include <spdlog/spdlog.h>

#include "broker/txn_markers.h"
#include "cluster/metadata_cache.h"
#include "protocol/write_txn_markers_request.h"
#include "protocol/write_txn_markers_response.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

protocol::WriteTxnMarkersRequest marker_request(const coordinator::TxnMarker& marker,
                                                const std::vector<coordinator::TxnPartition>& partitions) {
  protocol::WriteTxnMarkersRequest req;
  protocol::WriteTxnMarkersRequest::WritableTxnMarker m;
  m.producer_id = marker.producer_id;
  m.producer_epoch = marker.producer_epoch;
  m.transaction_result = marker.commit;
  m.coordinator_epoch = marker.coordinator_epoch;
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& tp : partitions) by_topic[tp.topic].push_back(tp.partition);
  for (auto& [name, parts] : by_topic) {
    protocol::WriteTxnMarkersRequest::WritableTxnMarker::WritableTxnMarkerTopic t;
    t.name = name;
    t.partition_indexes = std::move(parts);
    m.topics.push_back(std::move(t));
  }
  req.markers.push_back(std::move(m));
  return req;
}

void add_results(const protocol::WriteTxnMarkersResponse& resp, coordinator::TxnMarkerResult& out) {
  for (const auto& mr : resp.markers)
    for (const auto& t : mr.topics)
      for (const auto& p : t.partitions) out.emplace_back(coordinator::TxnPartition{t.name, p.partition_index}, p.error_code);
}

// Collects the answers of the per-leader sends; `done` runs after the last.
struct Gather {
  std::mutex mu;
  coordinator::TxnMarkerResult result;
  size_t pending = 1;  // released by the issuing loop
  std::function<void(coordinator::TxnMarkerResult)> done;

  void add() {
    std::lock_guard lk(mu);
    ++pending;
  }
  void release(coordinator::TxnMarkerResult part) {
    std::function<void(coordinator::TxnMarkerResult)> fire;
    coordinator::TxnMarkerResult out;
    {
      std::lock_guard lk(mu);
      result.insert(result.end(), part.begin(), part.end());
      if (--pending != 0) return;
      fire = std::move(done);
      out = std::move(result);
    }
    if (fire) fire(std::move(out));
  }
};

coordinator::TxnMarkerResult all_failed(const std::vector<coordinator::TxnPartition>& partitions, ErrorCode code) {
  coordinator::TxnMarkerResult r;
  for (const auto& tp : partitions) r.emplace_back(tp, code);
  return r;
}

}  // namespace

BrokerTxnMarkerSender::BrokerTxnMarkerSender(BrokerContext& ctx, bool cluster) : ctx_(ctx) {
  if (!cluster) return;
  client::NetworkClientOptions o;
  o.client_id = "spool-txn-markers-" + std::to_string(ctx.settings.broker_id);
  // Above the leader's acks=all wait, so that it answers first.
  o.request_timeout_ms = static_cast<int32_t>(ReplicaManager::kTxnMarkerReplicationTimeoutMs + 10000);
  o.security = ctx.settings.inter_broker_security;
  network_ = std::make_unique<client::NetworkClient>(o);
}

BrokerTxnMarkerSender::~BrokerTxnMarkerSender() { shutdown(); }

void BrokerTxnMarkerSender::shutdown() {
  if (network_) network_->shutdown();
}

void BrokerTxnMarkerSender::send(coordinator::TxnMarker marker,
                                 std::function<void(coordinator::TxnMarkerResult)> done) {
  auto local = [this](const coordinator::TxnMarker& m, const std::vector<coordinator::TxnPartition>& parts,
                      std::function<void(coordinator::TxnMarkerResult)> answer) {
    write_txn_markers(ctx_, marker_request(m, parts), [answer = std::move(answer)](protocol::WriteTxnMarkersResponse resp) {
      coordinator::TxnMarkerResult result;
      add_results(resp, result);
      answer(std::move(result));
    });
  };
  if (!network_ || ctx_.metadata == nullptr) {
    local(marker, marker.partitions, std::move(done));
    return;
  }
  const cluster::MetadataCache& cache = *ctx_.metadata;
  const int32_t self = ctx_.settings.broker_id;
  auto gather = std::make_shared<Gather>();
  gather->done = std::move(done);
  std::map<int32_t, std::vector<coordinator::TxnPartition>> by_leader;
  coordinator::TxnMarkerResult unroutable;
  const bool cache_empty = cache.live_brokers().empty();
  for (const auto& tp : marker.partitions) {
    auto pm = cache.partition(tp);
    if (!pm) {
      unroutable.emplace_back(tp, cache_empty ? ErrorCode::kLeaderNotAvailable : ErrorCode::kUnknownTopicOrPartition);
    } else if (pm->leader < 0) {
      unroutable.emplace_back(tp, ErrorCode::kNotLeaderOrFollower);
    } else {
      by_leader[pm->leader].push_back(tp);
    }
  }
  for (auto& [leader, parts] : by_leader) {
    gather->add();
    if (leader == self) {
      local(marker, parts, [gather](coordinator::TxnMarkerResult r) { gather->release(std::move(r)); });
      continue;
    }
    auto ep = cache.endpoint(leader, ctx_.settings.inter_broker_listener_name);
    if (!ep) {
      gather->release(all_failed(parts, ErrorCode::kNotLeaderOrFollower));
      continue;
    }
    const client::Node node{leader, ep->host, static_cast<uint16_t>(ep->port)};
    client::SendOptions so;
    so.max_version = 1;  // the coordinator writes transaction-version-1 markers
    network_->send<protocol::WriteTxnMarkersRequest, protocol::WriteTxnMarkersResponse>(
        node, marker_request(marker, parts),
        [gather, parts = parts, leader = leader, pid = marker.producer_id](
            Result<client::Reply<protocol::WriteTxnMarkersResponse>> reply) {
          if (!reply) {
            spdlog::info("WriteTxnMarkers for producer {} to broker {} failed: {}", pid, leader,
                         reply.status().message());
            const int16_t c = reply.status().kafka_code();
            gather->release(all_failed(parts, c > 0 ? static_cast<ErrorCode>(c) : ErrorCode::kNetworkException));
            return;
          }
          coordinator::TxnMarkerResult result;
          add_results(reply->message, result);
          gather->release(std::move(result));
        },
        so);
  }
  gather->release(std::move(unroutable));
}

Result<int64_t> ProducerIdAdapter::next_producer_id() {
  if (ids_ == nullptr)
    return Status::error("no producer id manager", static_cast<int16_t>(ErrorCode::kCoordinatorNotAvailable));
  auto id = ids_->next_id();
  if (!id) return Status::error(id.status().message(), static_cast<int16_t>(ErrorCode::kKafkaStorageError));
  return *id;
}

}  // namespace spool::broker
