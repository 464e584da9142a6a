#include "broker/cluster_replication.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "broker/cluster_member.h"

namespace spool::broker {

namespace {
constexpr int64_t kCheckpointIntervalMs = 5000;  // replica.high.watermark.checkpoint.interval.ms
int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

ClusterReplication::ClusterReplication(const BrokerSettings& settings, ReplicaManager& replicas)
    : settings_(settings), replicas_(replicas) {
  ReplicaManager::ClusterHooks hooks;
  hooks.local_broker_id = settings.broker_id;
  hooks.replica_lag_time_max_ms = settings.replica_lag_time_max_ms;
  hooks.eligible = [this](int32_t id) {
    std::lock_guard lk(mu_);
    return member_ == nullptr || member_->metadata().is_live(id);
  };
  hooks.isr_sink = [this](const std::shared_ptr<Partition>& p, const replica::IsrChange& c) { submit(p, c); };
  hooks.start_following = [this](const std::shared_ptr<Partition>& p, int32_t leader,
                                 const std::vector<cluster::LiveLeaderEndpoint>& leaders) { follow(p, leader, leaders); };
  hooks.stop_following = [this](const TopicPartition& tp) { unfollow(tp); };
  hooks.now_ms = steady_ms;
  replicas_.enable_cluster_mode(std::move(hooks));
}

ClusterReplication::~ClusterReplication() { stop(); }

void ClusterReplication::start(ClusterMember& member) {
  std::vector<Follow> pending;
  {
    std::lock_guard lk(mu_);
    member_ = &member;
    cluster::AlterPartitionSenderOptions ao;
    ao.broker_id = settings_.broker_id;
    ao.listener = settings_.inter_broker_listener_name;
    sender_ = std::make_unique<cluster::AlterPartitionSender>(ao, member.network(), member.metadata(), member.timer(),
                                                              [&member] { return member.broker_epoch(); });
    replica::FetcherOptions fo;
    fo.fetch.replica_id = settings_.broker_id;
    fo.fetch.broker_epoch = member.broker_epoch();
    fo.fetch.max_wait_ms = settings_.replica_fetch_wait_max_ms;
    fo.fetch.min_bytes = settings_.replica_fetch_min_bytes;
    fo.fetch.partition_max_bytes = settings_.replica_fetch_max_bytes;
    fo.num_fetchers = settings_.num_replica_fetchers;
    fo.backoff_ms = settings_.replica_fetch_backoff_ms;
    fetchers_ = std::make_unique<replica::ReplicaFetcherManager>(
        fo, std::make_shared<replica::NetworkLeaderEndpoint>(member.network(), settings_.broker_id,
                                                             settings_.replica_socket_timeout_ms));
    started_ = true;
    pending.swap(pending_follows_);
  }
  for (auto& f : pending)
    if (auto p = f.partition.lock(); p && p->role() == Partition::Role::kFollower && p->leader_id() == f.leader)
      follow(p, f.leader, f.leaders);
  housekeeping_ = std::thread([this] { housekeeping(); });
}

void ClusterReplication::stop() {
  {
    std::lock_guard lk(mu_);
    if (stopping_) return;
    stopping_ = true;
    cv_.notify_all();
  }
  if (housekeeping_.joinable()) housekeeping_.join();
  if (fetchers_) fetchers_->shutdown();
  if (sender_) sender_->shutdown();
  (void)replicas_.checkpoint_high_watermarks();
}

void ClusterReplication::follow(const std::shared_ptr<Partition>& p, int32_t leader,
                                const std::vector<cluster::LiveLeaderEndpoint>& leaders) {
  client::Node node;
  {
    std::lock_guard lk(mu_);
    if (stopping_) return;
    if (!started_) {
      pending_follows_.push_back({p, leader, leaders});
      return;
    }
    node.id = leader;
    for (const auto& l : leaders)
      if (l.broker_id == leader) {
        node.host = l.host;
        node.port = static_cast<uint16_t>(l.port);
      }
    if (node.host.empty()) {
      if (auto ep = member_->metadata().endpoint(leader, settings_.inter_broker_listener_name)) {
        node.host = ep->host.empty() ? "localhost" : ep->host;
        node.port = static_cast<uint16_t>(ep->port);
      }
    }
  }
  if (node.host.empty()) {
    spdlog::warn("{}: no endpoint known for leader {}; not fetching until the next LeaderAndIsr",
                 p->key().to_string(), leader);
    return;
  }
  replica::FollowedPartition f;
  f.tp = p->key();
  f.topic_id = p->topic_id();
  f.leader_epoch = p->leader_epoch();
  f.log = p->log_ptr();
  f.durable_writes = p->durable_writes();
  f.high_watermark = p->high_watermark();
  std::weak_ptr<Partition> weak = p;
  f.set_high_watermark = [weak](int64_t hw) {
    if (auto part = weak.lock()) part->set_follower_high_watermark(hw);
  };
  spdlog::info("{}: following broker {} ({}:{}) at leader epoch {}", f.tp.to_string(), leader, node.host, node.port,
               f.leader_epoch);
  fetchers_->add(node, std::move(f));
}

void ClusterReplication::unfollow(const TopicPartition& tp) {
  replica::ReplicaFetcherManager* fetchers = nullptr;
  {
    std::lock_guard lk(mu_);
    std::erase_if(pending_follows_, [&](const Follow& f) {
      auto p = f.partition.lock();
      return !p || p->key() == tp;
    });
    fetchers = fetchers_.get();
  }
  if (fetchers) fetchers->remove(tp);
}

void ClusterReplication::submit(const std::shared_ptr<Partition>& p, const replica::IsrChange& change) {
  cluster::AlterPartitionSender* sender = nullptr;
  {
    std::lock_guard lk(mu_);
    sender = sender_.get();
  }
  if (!sender) return;  // not started: the shrink pass proposes it again later
  cluster::AlterPartitionEntry e;
  e.partition = p->key();
  e.topic_id = p->topic_id();
  e.leader_epoch = change.leader_epoch;
  e.new_isr = change.new_isr;
  e.partition_epoch = change.partition_epoch;
  std::weak_ptr<Partition> weak = p;
  const uint64_t id = change.id;
  if (!sender->submit(e, [weak, id](const cluster::AlterPartitionOutcome& o) {
        auto part = weak.lock();
        if (!part) return;
        replica::AlterPartitionResult r;
        r.error = o.error;
        r.leader_id = o.leader;
        r.leader_epoch = o.leader_epoch;
        r.partition_epoch = o.partition_epoch;
        r.isr = o.isr;
        part->on_alter_partition_response(id, r);
      })) {
    spdlog::warn("{}: an AlterPartition is already pending; change {} not sent", e.partition.to_string(), id);
  }
}

void ClusterReplication::housekeeping() {
  const int64_t shrink_every = std::max<int64_t>(settings_.replica_lag_time_max_ms / 2, 10);
  int64_t next_shrink = steady_ms() + shrink_every;
  int64_t next_checkpoint = steady_ms() + kCheckpointIntervalMs;
  std::unique_lock lk(mu_);
  while (!stopping_) {
    const int64_t wake = std::min(next_shrink, next_checkpoint);
    cv_.wait_for(lk, std::chrono::milliseconds(std::max<int64_t>(wake - steady_ms(), 1)));
    if (stopping_) break;
    const int64_t now = steady_ms();
    lk.unlock();
    if (now >= next_shrink) {
      replicas_.maybe_shrink_isr();
      next_shrink = now + shrink_every;
    }
    if (now >= next_checkpoint) {
      (void)replicas_.checkpoint_high_watermarks();
      next_checkpoint = now + kCheckpointIntervalMs;
    }
    lk.lock();
  }
}

}  // namespace spool::broker
