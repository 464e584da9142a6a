#include "cluster/interbroker_wire.h"

#include <map>

#include "cluster/security_protocol.h"

namespace spool::cluster {

namespace {

template <class State>
PartitionMetadata partition_metadata(const std::string& topic, const TopicId& id, const State& s) {
  PartitionMetadata p;
  p.tp = TopicPartition(topic, s.partition_index);
  p.topic_id = id;
  p.controller_epoch = s.controller_epoch;
  p.leader = s.leader;
  p.leader_epoch = s.leader_epoch;
  p.isr = s.isr;
  p.partition_epoch = s.zk_version;
  p.replicas = s.replicas;
  p.offline_replicas = s.offline_replicas;
  return p;
}

LeaderAndIsrPartitionCommand partition_command(const std::string& topic, const TopicId& id,
                                               const protocol::LeaderAndIsrRequest::LeaderAndIsrPartitionState& s) {
  LeaderAndIsrPartitionCommand p;
  p.partition = TopicPartition(topic, s.partition_index);
  p.topic_id = id;
  p.controller_epoch = s.controller_epoch;
  p.leader = s.leader;
  p.leader_epoch = s.leader_epoch;
  p.isr = s.isr;
  p.partition_epoch = s.partition_epoch;
  p.replicas = s.replicas;
  p.adding_replicas = s.adding_replicas;
  p.removing_replicas = s.removing_replicas;
  p.is_new = s.is_new;
  p.leader_recovery_state = s.leader_recovery_state;
  return p;
}

}  // namespace

Result<UpdateMetadataCommand> decode_update_metadata(const protocol::UpdateMetadataRequest& request,
                                                     int16_t version) {
  UpdateMetadataCommand cmd;
  cmd.controller_id = request.controller_id;
  cmd.controller_epoch = request.controller_epoch;
  cmd.broker_epoch = version >= 5 ? request.broker_epoch : -1;
  cmd.is_kraft_controller = version >= 8 && request.is_k_raft_controller;
  cmd.type = version >= 8 ? request.type : 0;
  cmd.update.controller_id = request.controller_id;
  cmd.update.controller_epoch = request.controller_epoch;

  const TopicId zero{};
  if (version <= 4) {
    for (const auto& s : request.ungrouped_partition_states) {
      cmd.update.partitions.push_back(partition_metadata(s.topic_name, zero, s));
    }
  } else {
    for (const auto& t : request.topic_states) {
      const TopicId& id = version >= 7 ? t.topic_id : zero;
      for (const auto& s : t.partition_states) cmd.update.partitions.push_back(partition_metadata(t.topic_name, id, s));
    }
  }
  if (version < 4) {
    for (auto& p : cmd.update.partitions) p.offline_replicas.clear();
  }

  for (const auto& b : request.live_brokers) {
    LiveBroker broker;
    broker.id = b.id;
    if (version == 0) {
      // Kafka's v0: one PLAINTEXT endpoint.
      broker.endpoints.push_back(EndPoint{"PLAINTEXT", b.v0_host, b.v0_port, "PLAINTEXT"});
    } else {
      for (const auto& e : b.endpoints) {
        std::optional<std::string> protocol = security_protocol_name(e.security_protocol);
        if (!protocol) {
          return Status::error("UpdateMetadata v" + std::to_string(version) + ": broker " + std::to_string(b.id) +
                                   " has an endpoint with unknown security protocol " +
                                   std::to_string(e.security_protocol),
                               protocol::to_int(protocol::ErrorCode::kInvalidRequest));
        }
        // Before v3 the listener is named after its security protocol.
        std::string listener = version >= 3 ? e.listener : *protocol;
        broker.endpoints.push_back(EndPoint{std::move(listener), e.host, e.port, *protocol});
      }
    }
    if (version >= 2) broker.rack = b.rack;
    cmd.update.live_brokers.push_back(std::move(broker));
  }
  return cmd;
}

protocol::UpdateMetadataResponse update_metadata_response(protocol::ErrorCode error) {
  protocol::UpdateMetadataResponse r;
  r.error_code = error;
  return r;
}

LeaderAndIsrCommand decode_leader_and_isr(const protocol::LeaderAndIsrRequest& request, int16_t version) {
  LeaderAndIsrCommand cmd;
  cmd.controller_id = request.controller_id;
  cmd.controller_epoch = request.controller_epoch;
  cmd.broker_epoch = version >= 2 ? request.broker_epoch : -1;
  cmd.type = version >= 5 ? request.type : 0;
  cmd.is_kraft_controller = version >= 7 && request.is_k_raft_controller;
  const TopicId zero{};
  if (version <= 1) {
    for (const auto& s : request.ungrouped_partition_states) {
      cmd.partitions.push_back(partition_command(s.topic_name, zero, s));
    }
  } else {
    for (const auto& t : request.topic_states) {
      const TopicId& id = version >= 5 ? t.topic_id : zero;
      for (const auto& s : t.partition_states) cmd.partitions.push_back(partition_command(t.topic_name, id, s));
    }
  }
  for (auto& p : cmd.partitions) {
    if (version < 3) {
      p.adding_replicas.clear();
      p.removing_replicas.clear();
    }
    if (version < 1) p.is_new = false;
    if (version < 6) p.leader_recovery_state = 0;
  }
  for (const auto& l : request.live_leaders) cmd.live_leaders.push_back({l.broker_id, l.host_name, l.port});
  return cmd;
}

protocol::LeaderAndIsrResponse leader_and_isr_response(const LeaderAndIsrCommand& request, protocol::ErrorCode error,
                                                       const std::vector<PartitionErrorCode>& errors, int16_t version) {
  protocol::LeaderAndIsrResponse r;
  r.error_code = error;
  if (version < 5) {
    for (const auto& e : errors) r.partition_errors.push_back({e.partition.topic, e.partition.partition, e.error});
    return r;
  }
  std::map<std::string, TopicId> ids;
  for (const auto& p : request.partitions) ids.emplace(p.partition.topic, p.topic_id);
  // Topics in first-seen order of `errors`.
  std::map<std::string, size_t> slot;
  for (const auto& e : errors) {
    auto [it, inserted] = slot.emplace(e.partition.topic, r.topics.size());
    if (inserted) {
      protocol::LeaderAndIsrResponse::LeaderAndIsrTopicError t;
      auto id = ids.find(e.partition.topic);
      if (id != ids.end()) t.topic_id = id->second;
      r.topics.push_back(std::move(t));
    }
    r.topics[it->second].partition_errors.push_back({std::string(), e.partition.partition, e.error});
  }
  return r;
}

protocol::LeaderAndIsrResponse leader_and_isr_error_response(const LeaderAndIsrCommand& request,
                                                             protocol::ErrorCode error, int16_t version) {
  std::vector<PartitionErrorCode> errors;
  for (const auto& p : request.partitions) errors.push_back({p.partition, error});
  return leader_and_isr_response(request, error, errors, version);
}

StopReplicaCommand decode_stop_replica(const protocol::StopReplicaRequest& request, int16_t version) {
  StopReplicaCommand cmd;
  cmd.controller_id = request.controller_id;
  cmd.controller_epoch = request.controller_epoch;
  cmd.broker_epoch = version >= 1 ? request.broker_epoch : -1;
  cmd.is_kraft_controller = version >= 4 && request.is_k_raft_controller;
  if (version == 0) {
    for (const auto& p : request.ungrouped_partitions) {
      cmd.partitions.push_back({TopicPartition(p.topic_name, p.partition_index), kStopReplicaNoEpoch,
                                request.delete_partitions});
    }
  } else if (version <= 2) {
    for (const auto& t : request.topics) {
      for (int32_t index : t.partition_indexes) {
        cmd.partitions.push_back({TopicPartition(t.name, index), kStopReplicaNoEpoch, request.delete_partitions});
      }
    }
  } else {
    for (const auto& t : request.topic_states) {
      for (const auto& s : t.partition_states) {
        cmd.partitions.push_back({TopicPartition(t.topic_name, s.partition_index), s.leader_epoch, s.delete_partition});
      }
    }
  }
  return cmd;
}

protocol::StopReplicaResponse stop_replica_response(protocol::ErrorCode error,
                                                    const std::vector<PartitionErrorCode>& errors) {
  protocol::StopReplicaResponse r;
  r.error_code = error;
  for (const auto& e : errors) r.partition_errors.push_back({e.partition.topic, e.partition.partition, e.error});
  return r;
}

protocol::StopReplicaResponse stop_replica_error_response(const StopReplicaCommand& request,
                                                          protocol::ErrorCode error) {
  std::vector<PartitionErrorCode> errors;
  for (const auto& p : request.partitions) errors.push_back({p.partition, error});
  return stop_replica_response(error, errors);
}

}  // namespace spool::cluster
