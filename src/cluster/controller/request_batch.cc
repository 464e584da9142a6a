#include "cluster/controller/request_batch.h"

#include <algorithm>

namespace spool::cluster::controller {

void RequestBatch::clear() {
  lai_.clear();
  um_brokers_.clear();
  um_partitions_.clear();
  stop_.clear();
}

bool RequestBatch::addressable(int32_t broker) const { return broker >= 0 && ctx_.brokers.count(broker) != 0; }

void RequestBatch::add_leader_and_isr(const std::vector<int32_t>& brokers, const TopicPartition& tp,
                                      const PartitionLeadership& lead, const std::vector<int32_t>& replicas,
                                      bool is_new) {
  for (int32_t b : brokers) {
    if (!addressable(b)) continue;
    LeaderAndIsrPartition p;
    p.partition = tp;
    p.controller_epoch = lead.controller_epoch;
    p.leader = lead.leader_and_isr.leader;
    p.leader_epoch = lead.leader_and_isr.leader_epoch;
    p.isr = lead.leader_and_isr.isr;
    p.partition_epoch = lead.leader_and_isr.partition_epoch;
    p.replicas = replicas;
    if (auto r = ctx_.reassigning.find(tp); r != ctx_.reassigning.end()) {
      p.adding_replicas = r->second.adding;
      p.removing_replicas = r->second.removing;
    }
    p.leader_recovery_state = lead.leader_and_isr.recovery;
    auto& list = lai_[b];
    auto it = std::find_if(list.begin(), list.end(), [&](const LeaderAndIsrPartition& x) { return x.partition == tp; });
    if (it == list.end()) {
      p.is_new = is_new;
      list.push_back(std::move(p));
    } else {
      p.is_new = it->is_new || is_new;  // Kafka keeps isNew once set in a batch
      *it = std::move(p);
    }
  }
  std::vector<int32_t> all(ctx_.brokers.size());
  std::transform(ctx_.brokers.begin(), ctx_.brokers.end(), all.begin(), [](const auto& kv) { return kv.first; });
  add_update_metadata(all, {tp});
}

void RequestBatch::add_update_metadata(const std::vector<int32_t>& brokers,
                                       const std::vector<TopicPartition>& partitions) {
  for (int32_t b : brokers) {
    if (!addressable(b)) continue;
    um_brokers_.insert(b);
    auto& list = um_partitions_[b];
    for (const auto& tp : partitions) {
      if (std::find(list.begin(), list.end(), tp) == list.end()) list.push_back(tp);
    }
  }
}

void RequestBatch::add_stop_replica(const std::vector<int32_t>& brokers, const TopicPartition& tp,
                                    bool delete_partition) {
  int32_t epoch = -1;  // LeaderAndIsr.NoEpoch
  if (ctx_.queued_for_deletion(tp.topic)) {
    epoch = -2;  // LeaderAndIsr.EpochDuringDelete
  } else if (auto it = ctx_.leadership.find(tp); it != ctx_.leadership.end()) {
    epoch = it->second.leader_and_isr.leader_epoch;
  }
  for (int32_t b : brokers) {
    if (!addressable(b)) continue;
    auto& list = stop_[b];
    auto it = std::find_if(list.begin(), list.end(), [&](const StopReplicaPartition& x) { return x.partition == tp; });
    if (it == list.end()) {
      list.push_back(StopReplicaPartition{tp, epoch, delete_partition});
    } else {
      it->leader_epoch = epoch;
      it->delete_partition = it->delete_partition || delete_partition;
    }
  }
}

std::optional<UpdateMetadataPartition> RequestBatch::um_state(const TopicPartition& tp) const {
  auto it = ctx_.leadership.find(tp);
  if (it == ctx_.leadership.end()) return std::nullopt;  // Kafka: no leader yet, not sent
  UpdateMetadataPartition p;
  p.partition = tp;
  p.replicas = ctx_.replicas(tp);
  p.controller_epoch = it->second.controller_epoch;
  if (ctx_.queued_for_deletion(tp.topic)) {
    // Kafka's LeaderAndIsr.duringDelete(isr): leader -2, epochs at their initial 0.
    p.leader = kLeaderDuringDelete;
    p.leader_epoch = 0;
    p.zk_version = 0;
  } else {
    p.leader = it->second.leader_and_isr.leader;
    p.leader_epoch = it->second.leader_and_isr.leader_epoch;
    p.zk_version = it->second.leader_and_isr.partition_epoch;
  }
  p.isr = it->second.leader_and_isr.isr;
  for (int32_t r : p.replicas) {
    // Kafka's isReplicaOnline: a dead broker, a replica on an offline log dir
    // and (as in Kafka) a broker in controlled shutdown count as offline.
    if (!ctx_.is_replica_online(r, tp)) p.offline_replicas.push_back(r);
  }
  return p;
}

void RequestBatch::send(BrokerChannel& channel, int32_t controller_epoch) {
  std::set<int32_t> targets(um_brokers_);
  for (const auto& [b, l] : lai_) targets.insert(b);
  for (const auto& [b, l] : stop_) targets.insert(b);

  std::vector<BrokerInfo> live;
  for (const auto& [id, info] : ctx_.brokers) live.push_back(info);

  for (int32_t b : targets) {
    const int64_t broker_epoch = ctx_.broker_epoch(b).value_or(-1);
    if (auto it = lai_.find(b); it != lai_.end() && !it->second.empty()) {
      LeaderAndIsrRequest req;
      req.controller_id = controller_id_;
      req.controller_epoch = controller_epoch;
      req.broker_epoch = broker_epoch;
      req.partition_states = it->second;
      std::set<int32_t> leaders;
      std::set<std::string> topics;
      for (const auto& p : req.partition_states) {
        leaders.insert(p.leader);
        topics.insert(p.partition.topic);
      }
      for (const auto& t : topics) {
        if (auto id = ctx_.topic_ids.find(t); id != ctx_.topic_ids.end()) req.topic_ids.emplace_back(t, id->second);
      }
      for (int32_t l : leaders) {
        auto bi = ctx_.brokers.find(l);
        if (bi == ctx_.brokers.end()) continue;
        const auto& eps = bi->second.endpoints;
        auto ep = std::find_if(eps.begin(), eps.end(), [&](const BrokerEndpoint& e) { return e.listener == listener_; });
        if (ep == eps.end()) continue;
        LiveLeader ll;
        ll.broker_id = l;
        ll.host_name = ep->host;
        ll.port = ep->port;
        req.live_leaders.push_back(std::move(ll));
      }
      channel.send(b, std::move(req));
    }
    if (um_brokers_.count(b) != 0) {
      UpdateMetadataRequest req;
      req.controller_id = controller_id_;
      req.controller_epoch = controller_epoch;
      req.broker_epoch = broker_epoch;
      std::set<std::string> topics;
      for (const auto& tp : um_partitions_[b]) {
        auto st = um_state(tp);
        if (!st) continue;
        req.partition_states.push_back(std::move(*st));
        topics.insert(tp.topic);
      }
      for (const auto& t : topics) {
        if (auto id = ctx_.topic_ids.find(t); id != ctx_.topic_ids.end()) req.topic_ids.emplace_back(t, id->second);
      }
      req.live_brokers = live;
      channel.send(b, std::move(req));
    }
    if (auto it = stop_.find(b); it != stop_.end() && !it->second.empty()) {
      StopReplicaRequest req;
      req.controller_id = controller_id_;
      req.controller_epoch = controller_epoch;
      req.broker_epoch = broker_epoch;
      req.partitions = it->second;
      channel.send(b, std::move(req));
    }
  }
  clear();
}

}  // namespace spool::cluster::controller
