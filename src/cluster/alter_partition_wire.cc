#include "cluster/alter_partition_wire.h"

#include <algorithm>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

namespace spool::cluster {

namespace {
bool is_zero(const TopicId& id) {
  return std::all_of(id.begin(), id.end(), [](uint8_t b) { return b == 0; });
}
}  // namespace

int16_t alter_partition_max_version(const std::vector<AlterPartitionEntry>& entries) {
  for (const auto& e : entries) {
    if (is_zero(e.topic_id)) return 1;
  }
  return 3;
}

protocol::AlterPartitionRequest alter_partition_request(int32_t broker_id, int64_t broker_epoch,
                                                        const std::vector<AlterPartitionEntry>& entries,
                                                        int16_t version) {
  protocol::AlterPartitionRequest req;
  req.broker_id = broker_id;
  req.broker_epoch = broker_epoch;
  std::map<std::string, size_t> slot;
  for (const auto& e : entries) {
    auto [it, inserted] = slot.emplace(e.partition.topic, req.topics.size());
    if (inserted) {
      protocol::AlterPartitionRequest::TopicData t;
      if (version <= 1) t.topic_name = e.partition.topic;
      if (version >= 2) t.topic_id = e.topic_id;
      req.topics.push_back(std::move(t));
    }
    protocol::AlterPartitionRequest::TopicData::PartitionData p;
    p.partition_index = e.partition.partition;
    p.leader_epoch = e.leader_epoch;
    if (version >= 3) {
      for (int32_t b : e.new_isr) p.new_isr_with_epochs.push_back({b, -1});
    } else {
      p.new_isr = e.new_isr;
    }
    if (version >= 1) p.leader_recovery_state = e.leader_recovery_state;
    p.partition_epoch = e.partition_epoch;
    req.topics[it->second].partitions.push_back(std::move(p));
  }
  return req;
}

AlterPartitionReply parse_alter_partition_response(const protocol::AlterPartitionResponse& response, int16_t version,
                                                   const std::vector<AlterPartitionEntry>& request) {
  AlterPartitionReply reply;
  reply.error = response.error_code;
  std::map<TopicId, std::string> names;
  for (const auto& e : request) names.emplace(e.topic_id, e.partition.topic);
  std::map<TopicPartition, AlterPartitionOutcome> answered;
  for (const auto& t : response.topics) {
    std::string topic;
    if (version >= 2) {
      auto it = names.find(t.topic_id);
      if (it == names.end()) {
        spdlog::warn("AlterPartition response names topic id {} the request did not hold; ignored",
                     topic_id_to_text(t.topic_id));
        continue;
      }
      topic = it->second;
    } else {
      topic = t.topic_name;
    }
    for (const auto& p : t.partitions) {
      AlterPartitionOutcome o;
      o.partition = TopicPartition(topic, p.partition_index);
      o.error = p.error_code;
      o.leader = p.leader_id;
      o.leader_epoch = p.leader_epoch;
      o.isr = p.isr;
      o.partition_epoch = p.partition_epoch;
      o.leader_recovery_state = version >= 1 ? p.leader_recovery_state : 0;
      answered.emplace(o.partition, std::move(o));
    }
  }
  if (reply.error != protocol::ErrorCode::kNone) return reply;
  for (const auto& e : request) {
    auto it = answered.find(e.partition);
    if (it == answered.end()) {
      reply.missing.push_back(e.partition);
    } else {
      reply.partitions.push_back(it->second);
    }
  }
  return reply;
}

protocol::ControlledShutdownRequest controlled_shutdown_request(int32_t broker_id, int64_t broker_epoch) {
  protocol::ControlledShutdownRequest req;
  req.broker_id = broker_id;
  req.broker_epoch = broker_epoch;
  return req;
}

ControlledShutdownReply parse_controlled_shutdown_response(const protocol::ControlledShutdownResponse& response) {
  ControlledShutdownReply reply;
  reply.error = response.error_code;
  for (const auto& p : response.remaining_partitions) reply.remaining.emplace_back(p.topic_name, p.partition_index);
  return reply;
}

}  // namespace spool::cluster
