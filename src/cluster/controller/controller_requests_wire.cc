#include "cluster/controller/controller_requests_wire.h"

namespace spool::cluster::controller {

using protocol::ErrorCode;

AlterPartitionInput alter_partition_from_wire(const protocol::AlterPartitionRequest& request, int16_t version,
                                              const TopicNameLookup& names) {
  AlterPartitionInput in;
  in.version = version;
  in.request.broker_id = request.broker_id;
  in.request.broker_epoch = request.broker_epoch;
  for (const auto& t : request.topics) {
    AlterPartitionInput::Topic topic;
    if (version >= 2) {
      topic.id = t.topic_id;
      std::optional<std::string> name = names(t.topic_id);
      if (name) {
        topic.name = *name;
        in.resolved_ids.emplace(*name, t.topic_id);
      }
    } else {
      topic.name = t.topic_name;
    }
    for (const auto& p : t.partitions) {
      topic.partitions.push_back(p.partition_index);
      if (topic.name.empty()) continue;
      AlterPartitionItem item;
      item.partition = TopicPartition(topic.name, p.partition_index);
      item.leader_epoch = p.leader_epoch;
      if (version >= 3) {
        for (const auto& b : p.new_isr_with_epochs) item.new_isr.push_back(b.broker_id);
      } else {
        item.new_isr = p.new_isr;
      }
      item.leader_recovery_state = version >= 1 && p.leader_recovery_state == 1 ? LeaderRecoveryState::kRecovering
                                                                                 : LeaderRecoveryState::kRecovered;
      item.partition_epoch = p.partition_epoch;
      in.request.partitions.push_back(std::move(item));
    }
    in.topics.push_back(std::move(topic));
  }
  return in;
}

protocol::AlterPartitionResponse alter_partition_response(const AlterPartitionInput& input,
                                                          const AlterPartitionResult& result) {
  protocol::AlterPartitionResponse resp;
  resp.error_code = result.error;
  if (result.error != ErrorCode::kNone) return resp;
  std::map<TopicPartition, const AlterPartitionItemResult*> by_partition;
  for (const auto& r : result.partitions) by_partition.emplace(r.partition, &r);
  for (const auto& t : input.topics) {
    protocol::AlterPartitionResponse::TopicData td;
    if (input.version >= 2) {
      td.topic_id = t.id;
    } else {
      td.topic_name = t.name;
    }
    for (int32_t index : t.partitions) {
      protocol::AlterPartitionResponse::TopicData::PartitionData pd;
      pd.partition_index = index;
      if (t.name.empty()) {
        pd.error_code = ErrorCode::kUnknownTopicId;
      } else {
        auto it = by_partition.find(TopicPartition(t.name, index));
        if (it == by_partition.end()) {
          pd.error_code = ErrorCode::kUnknownServerError;
        } else if (it->second->error != ErrorCode::kNone) {
          pd.error_code = it->second->error;
        } else {
          const LeaderAndIsr& s = it->second->state;
          pd.leader_id = s.leader;
          pd.leader_epoch = s.leader_epoch;
          pd.isr = s.isr;
          if (input.version >= 1) pd.leader_recovery_state = static_cast<int8_t>(s.recovery);
          pd.partition_epoch = s.partition_epoch;
        }
      }
      td.partitions.push_back(std::move(pd));
    }
    resp.topics.push_back(std::move(td));
  }
  return resp;
}

ControlledShutdownInput controlled_shutdown_from_wire(const protocol::ControlledShutdownRequest& request,
                                                      int16_t version) {
  return ControlledShutdownInput{request.broker_id, version >= 2 ? request.broker_epoch : -1};
}

protocol::ControlledShutdownResponse controlled_shutdown_response(const ControlledShutdownResult& result) {
  protocol::ControlledShutdownResponse resp;
  resp.error_code = result.error;
  for (const auto& tp : result.remaining) resp.remaining_partitions.push_back({tp.topic, tp.partition});
  return resp;
}

}  // namespace spool::cluster::controller
