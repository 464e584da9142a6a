#include "broker/cluster_replication.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "broker/cluster_admin.h"

namespace spool::broker {

namespace {
constexpr int64_t kHwCheckpointIntervalMs = 5000;  // replica.high.watermark.checkpoint.interval.ms
}

ClusterReplication::ClusterReplication(const BrokerSettings& settings, ClusterMember& member)
    : settings_(settings), member_(member) {
  endpoint_ = std::make_shared<replica::NetworkLeaderEndpoint>(member.network(), settings.broker_id,
                                                               settings.replica_socket_timeout_ms);
  replica::FetcherOptions fo;
  fo.fetch.replica_id = settings.broker_id;
  fo.fetch.max_wait_ms = settings.replica_fetch_wait_max_ms;
  fo.fetch.min_bytes = settings.replica_fetch_min_bytes;
  fo.fetch.partition_max_bytes = settings.replica_fetch_max_bytes;
  fo.num_fetchers = std::max(1, settings.num_replica_fetchers);
  fo.backoff_ms = settings.replica_fetch_backoff_ms;
  fo.truncate_on_fetch = settings.truncate_on_fetch;
  auto leader_rate = leader_rate_;
  auto follower_rate = follower_rate_;
  const int samples = settings.replication_quota_window_num;
  const int64_t window_ms = settings.replication_quota_window_ms;
  leader_quota_ = std::make_shared<replica::ReplicationQuota>([leader_rate] { return leader_rate->load(); }, samples,
                                                              window_ms);
  follower_quota_ = std::make_shared<replica::ReplicationQuota>([follower_rate] { return follower_rate->load(); },
                                                                samples, window_ms);
  fo.quota = follower_quota_;
  fetchers_ = std::make_unique<replica::ReplicaFetcherManager>(fo, endpoint_);
  cluster::AlterPartitionSenderOptions ao;
  ao.broker_id = settings.broker_id;
  ao.listener = settings.controller_listener();
  ao.request_timeout_ms = settings.controller_socket_timeout_ms;
  ClusterMember* m = &member;
  sender_ = std::make_unique<cluster::AlterPartitionSender>(ao, member.network(), member.metadata(), member.timer(),
                                                            [m] { return m->broker_epoch(); });
}

ClusterReplication::~ClusterReplication() { stop(); }

ReplicaManager::ClusterHooks ClusterReplication::hooks() {
  ReplicaManager::ClusterHooks h;
  h.local_broker_id = settings_.broker_id;
  h.replica_lag_time_max_ms = settings_.replica_lag_time_max_ms;
  h.leader_quota = leader_quota_;
  ClusterMember* member = &member_;
  h.topic_configs = [member](const std::string& topic) -> std::optional<std::map<std::string, std::string>> {
    auto got = read_topic_config(*member, topic);
    if (!got) {
      spdlog::warn("reading the configs of topic {}: {}", topic, got.status().message());
      return std::nullopt;
    }
    return std::move(*got);
  };
  cluster::MetadataCache* cache = &member_.metadata();
  h.eligible = [cache](int32_t broker) { return cache->is_live(broker); };
  cluster::AlterPartitionSender* sender = sender_.get();
  h.isr_sink = [sender](const std::shared_ptr<Partition>& p, const replica::IsrChange& change) {
    cluster::AlterPartitionEntry e;
    e.partition = TopicPartition{p->topic(), p->index()};
    e.topic_id = p->topic_id();
    e.leader_epoch = change.leader_epoch;
    e.new_isr = change.new_isr;
    e.partition_epoch = change.partition_epoch;
    std::weak_ptr<Partition> weak = p;
    const uint64_t id = change.id;
    bool queued = sender->submit(e, [weak, id](const cluster::AlterPartitionOutcome& o) {
      auto part = weak.lock();
      if (!part) return;
      replica::AlterPartitionResult r;
      r.error = o.error;
      r.leader_id = o.leader;
      r.leader_epoch = o.leader_epoch;
      r.partition_epoch = o.partition_epoch;
      r.isr = o.isr;
      part->on_alter_partition_response(id, r);
    });
    if (!queued) {
      // An earlier change of this partition (from before a new LeaderAndIsr)
      // is still queued: this one is not attempted (Kafka's
      // OperationNotAttempted), so the partition may propose again later;
      // left pending, it would block every ISR change for good.
      spdlog::info("AlterPartition for {}-{} not queued: an earlier one is pending", p->topic(), p->index());
      replica::AlterPartitionResult r;
      r.error = protocol::ErrorCode::kOperationNotAttempted;
      p->on_alter_partition_response(id, r);
    }
  };
  replica::ReplicaFetcherManager* fetchers = fetchers_.get();
  h.start_following = [fetchers](const std::shared_ptr<Partition>& p, int32_t leader,
                                 const std::vector<cluster::LiveLeaderEndpoint>& leaders) {
    const cluster::LiveLeaderEndpoint* ep = nullptr;
    for (const auto& l : leaders) {
      if (l.broker_id == leader) ep = &l;
    }
    if (ep == nullptr) {
      spdlog::warn("partition {}-{}: leader {} has no endpoint in the LeaderAndIsr; not fetching", p->topic(),
                   p->index(), leader);
      return;
    }
    replica::FollowedPartition fp;
    fp.tp = TopicPartition{p->topic(), p->index()};
    fp.topic_id = p->topic_id();
    fp.leader_epoch = p->leader_epoch();
    fp.log = p->log_ptr();
    fp.durable_writes = p->durable_writes();
    fp.high_watermark = p->high_watermark();
    std::weak_ptr<Partition> weak = p;
    fp.set_high_watermark = [weak](int64_t hw) {
      if (auto part = weak.lock()) part->set_follower_high_watermark(hw);
    };
    fp.throttled = [weak] {
      auto part = weak.lock();
      return part && part->follower_throttled();
    };
    fetchers->add(client::Node{leader, ep->host, static_cast<uint16_t>(ep->port)}, std::move(fp));
  };
  h.stop_following = [fetchers](const TopicPartition& tp) { fetchers->remove(tp); };
  return h;
}

void ClusterReplication::start(ReplicaManager& replicas) {
  periodic_ = std::thread([this, &replicas] { periodic_loop(&replicas); });
}

void ClusterReplication::periodic_loop(ReplicaManager* replicas) {
  const auto shrink_every = std::chrono::milliseconds(std::max<int64_t>(50, settings_.replica_lag_time_max_ms / 2));
  const auto checkpoint_every = std::chrono::milliseconds(kHwCheckpointIntervalMs);
  auto next_shrink = std::chrono::steady_clock::now() + shrink_every;
  auto next_checkpoint = std::chrono::steady_clock::now() + checkpoint_every;
  std::unique_lock lk(mu_);
  while (!stopping_) {
    cv_.wait_until(lk, std::min(next_shrink, next_checkpoint), [this] { return stopping_; });
    if (stopping_) break;
    lk.unlock();
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_shrink) {
      replicas->maybe_shrink_isr();
      next_shrink = now + shrink_every;
    }
    if (now >= next_checkpoint) {
      if (Status s = replicas->checkpoint_high_watermarks(); !s)
        spdlog::error("replication-offset-checkpoint: {}", s.message());
      next_checkpoint = now + checkpoint_every;
    }
    lk.lock();
  }
}

void ClusterReplication::stop() {
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (periodic_.joinable()) periodic_.join();
  if (fetchers_) fetchers_->shutdown();
  if (sender_) sender_->shutdown();
}

}  // namespace spool::broker
