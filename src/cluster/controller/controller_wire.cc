#include "cluster/controller/controller_wire.h"

#include <map>
#include <string>

#include <spdlog/spdlog.h>

#include "cluster/security_protocol.h"
#include "cluster/zk_data.h"

namespace spool::cluster::controller {

namespace {

TopicId id_of(const std::vector<std::pair<std::string, TopicId>>& ids, const std::string& topic) {
  for (const auto& [name, id] : ids) {
    if (name == topic) return id;
  }
  return TopicId{};
}

// The entry of `topic` in `topics` (made by make() on first sight), so
// topics keep the order their first partition had.
template <class Topics, class Make>
auto& topic_slot(Topics& topics, std::map<std::string, size_t>& slots, const std::string& topic, Make make) {
  auto [it, inserted] = slots.emplace(topic, topics.size());
  if (inserted) topics.push_back(make());
  return topics[it->second];
}

protocol::LeaderAndIsrRequest::LeaderAndIsrPartitionState lai_state(const LeaderAndIsrPartition& p,
                                                                    int16_t version) {
  protocol::LeaderAndIsrRequest::LeaderAndIsrPartitionState s;
  if (version <= 1) s.topic_name = p.partition.topic;
  s.partition_index = p.partition.partition;
  s.controller_epoch = p.controller_epoch;
  s.leader = p.leader;
  s.leader_epoch = p.leader_epoch;
  s.isr = p.isr;
  s.partition_epoch = p.partition_epoch;
  s.replicas = p.replicas;
  if (version >= 3) {
    s.adding_replicas = p.adding_replicas;
    s.removing_replicas = p.removing_replicas;
  }
  if (version >= 1) s.is_new = p.is_new;
  if (version >= 6) s.leader_recovery_state = static_cast<int8_t>(p.leader_recovery_state);
  return s;
}

protocol::UpdateMetadataRequest::UpdateMetadataPartitionState um_state(const UpdateMetadataPartition& p,
                                                                       int16_t version) {
  protocol::UpdateMetadataRequest::UpdateMetadataPartitionState s;
  if (version <= 4) s.topic_name = p.partition.topic;
  s.partition_index = p.partition.partition;
  s.controller_epoch = p.controller_epoch;
  s.leader = p.leader;
  s.leader_epoch = p.leader_epoch;
  s.isr = p.isr;
  s.zk_version = p.zk_version;
  s.replicas = p.replicas;
  if (version >= 4) s.offline_replicas = p.offline_replicas;
  return s;
}

}  // namespace

protocol::LeaderAndIsrRequest leader_and_isr_to_wire(const LeaderAndIsrRequest& request, int16_t version) {
  protocol::LeaderAndIsrRequest w;
  w.controller_id = request.controller_id;
  w.controller_epoch = request.controller_epoch;
  if (version >= 2) w.broker_epoch = request.broker_epoch;
  if (version >= 5) w.type = request.type;
  if (version <= 1) {
    for (const auto& p : request.partition_states) w.ungrouped_partition_states.push_back(lai_state(p, version));
  } else {
    std::map<std::string, size_t> slots;
    for (const auto& p : request.partition_states) {
      auto& t = topic_slot(w.topic_states, slots, p.partition.topic, [&] {
        protocol::LeaderAndIsrRequest::LeaderAndIsrTopicState ts;
        ts.topic_name = p.partition.topic;
        if (version >= 5) ts.topic_id = id_of(request.topic_ids, p.partition.topic);
        return ts;
      });
      t.partition_states.push_back(lai_state(p, version));
    }
  }
  for (const auto& l : request.live_leaders) w.live_leaders.push_back({l.broker_id, l.host_name, l.port});
  return w;
}

protocol::UpdateMetadataRequest update_metadata_to_wire(const UpdateMetadataRequest& request, int16_t version) {
  protocol::UpdateMetadataRequest w;
  w.controller_id = request.controller_id;
  w.controller_epoch = request.controller_epoch;
  if (version >= 5) w.broker_epoch = request.broker_epoch;
  if (version <= 4) {
    for (const auto& p : request.partition_states) w.ungrouped_partition_states.push_back(um_state(p, version));
  } else {
    std::map<std::string, size_t> slots;
    for (const auto& p : request.partition_states) {
      auto& t = topic_slot(w.topic_states, slots, p.partition.topic, [&] {
        protocol::UpdateMetadataRequest::UpdateMetadataTopicState ts;
        ts.topic_name = p.partition.topic;
        if (version >= 7) ts.topic_id = id_of(request.topic_ids, p.partition.topic);
        return ts;
      });
      t.partition_states.push_back(um_state(p, version));
    }
  }
  for (const auto& b : request.live_brokers) {
    protocol::UpdateMetadataRequest::UpdateMetadataBroker wb;
    wb.id = b.id;
    if (version == 0) {
      for (const auto& e : b.endpoints) {
        if (e.security_protocol == "PLAINTEXT") {
          wb.v0_host = e.host;
          wb.v0_port = e.port;
          break;
        }
      }
    } else {
      for (const auto& e : b.endpoints) {
        std::optional<int16_t> sp = security_protocol_id(e.security_protocol);
        if (!sp) {
          spdlog::warn("UpdateMetadata: broker {} endpoint {} has unknown security protocol \"{}\"; not sent", b.id,
                       e.listener, e.security_protocol);
          continue;
        }
        protocol::UpdateMetadataRequest::UpdateMetadataEndpoint we;
        we.port = e.port;
        we.host = e.host;
        if (version >= 3) we.listener = e.listener;
        we.security_protocol = *sp;
        wb.endpoints.push_back(std::move(we));
      }
    }
    if (version >= 2) wb.rack = b.rack;
    w.live_brokers.push_back(std::move(wb));
  }
  return w;
}

protocol::StopReplicaRequest stop_replica_to_wire(const StopReplicaRequest& request, int16_t version) {
  protocol::StopReplicaRequest w;
  w.controller_id = request.controller_id;
  w.controller_epoch = request.controller_epoch;
  if (version >= 1) w.broker_epoch = request.broker_epoch;
  if (version <= 2) {
    w.delete_partitions = !request.partitions.empty() && request.partitions.front().delete_partition;
  }
  std::map<std::string, size_t> slots;
  for (const auto& p : request.partitions) {
    if (version == 0) {
      w.ungrouped_partitions.push_back({p.partition.topic, p.partition.partition});
    } else if (version <= 2) {
      auto& t = topic_slot(w.topics, slots, p.partition.topic, [&] {
        protocol::StopReplicaRequest::StopReplicaTopicV1 tv;
        tv.name = p.partition.topic;
        return tv;
      });
      t.partition_indexes.push_back(p.partition.partition);
    } else {
      auto& t = topic_slot(w.topic_states, slots, p.partition.topic, [&] {
        protocol::StopReplicaRequest::StopReplicaTopicState ts;
        ts.topic_name = p.partition.topic;
        return ts;
      });
      t.partition_states.push_back({p.partition.partition, p.leader_epoch, p.delete_partition});
    }
  }
  return w;
}

ControllerResponse leader_and_isr_from_wire(const protocol::LeaderAndIsrResponse& response, int16_t version,
                                            const LeaderAndIsrRequest& request) {
  ControllerResponse r;
  r.error = response.error_code;
  if (version <= 4) {
    for (const auto& e : response.partition_errors) {
      r.partition_errors.push_back({TopicPartition(e.topic_name, e.partition_index), e.error_code});
    }
    return r;
  }
  std::map<TopicId, std::string> names;
  for (const auto& [name, id] : request.topic_ids) names.emplace(id, name);
  for (const auto& t : response.topics) {
    auto it = names.find(t.topic_id);
    if (it == names.end()) {
      spdlog::warn("LeaderAndIsr response names topic id {} the request did not carry; skipped",
                   topic_id_to_text(t.topic_id));
      continue;
    }
    for (const auto& e : t.partition_errors) {
      r.partition_errors.push_back({TopicPartition(it->second, e.partition_index), e.error_code});
    }
  }
  return r;
}

ControllerResponse update_metadata_from_wire(const protocol::UpdateMetadataResponse& response) {
  ControllerResponse r;
  r.error = response.error_code;
  return r;
}

ControllerResponse stop_replica_from_wire(const protocol::StopReplicaResponse& response) {
  ControllerResponse r;
  r.error = response.error_code;
  for (const auto& e : response.partition_errors) {
    r.partition_errors.push_back({TopicPartition(e.topic_name, e.partition_index), e.error_code});
  }
  return r;
}

int16_t controller_request_api_key(const ControllerRequest& request) {
  if (std::holds_alternative<LeaderAndIsrRequest>(request)) return protocol::LeaderAndIsrRequest::kApiKey;
  if (std::holds_alternative<UpdateMetadataRequest>(request)) return protocol::UpdateMetadataRequest::kApiKey;
  return protocol::StopReplicaRequest::kApiKey;
}

void encode_controller_request(const ControllerRequest& request, int16_t version, ByteWriter& w) {
  if (const auto* lai = std::get_if<LeaderAndIsrRequest>(&request)) {
    leader_and_isr_to_wire(*lai, version).encode(w, version);
  } else if (const auto* um = std::get_if<UpdateMetadataRequest>(&request)) {
    update_metadata_to_wire(*um, version).encode(w, version);
  } else {
    stop_replica_to_wire(std::get<StopReplicaRequest>(request), version).encode(w, version);
  }
}

std::optional<ControllerResponse> decode_controller_response(const ControllerRequest& request, int16_t version,
                                                             ByteSpan body) {
  ByteReader r(body);
  if (const auto* lai = std::get_if<LeaderAndIsrRequest>(&request)) {
    protocol::LeaderAndIsrResponse resp;
    if (!resp.decode(r, version)) return std::nullopt;
    return leader_and_isr_from_wire(resp, version, *lai);
  }
  if (std::holds_alternative<UpdateMetadataRequest>(request)) {
    protocol::UpdateMetadataResponse resp;
    if (!resp.decode(r, version)) return std::nullopt;
    return update_metadata_from_wire(resp);
  }
  protocol::StopReplicaResponse resp;
  if (!resp.decode(r, version)) return std::nullopt;
  return stop_replica_from_wire(resp);
}

}  // namespace spool::cluster::controller
