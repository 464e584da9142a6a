// InternalTopicLog: coordinator::OffsetsLog over any compacted internal topic
// of this broker (used for __transaction_state; __consumer_offsets has its
// own OffsetsTopic with the same behaviour and could be re-based on this).
//
// The topic is created on first need by ensure_created(). partition_count()
// is fixed for the object's life (the existing topic's count, else the
// configured one), so an id's partition never changes under a coordinator.
// append() writes one uncompressed batch (CreateTime = now) and answers once
// durable; read_all() replays from log start to the end at call time, skipping
// control batches.
// Failure: a missing partition -> COORDINATOR_NOT_AVAILABLE, an oversized
// batch -> RECORD_LIST_TOO_LARGE, I/O errors keep their storage code.
// Threading: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "broker/broker_settings.h"
#include "broker/replica_manager.h"
#include "coordinator/group/offsets_log.h"

namespace spool::broker {

class InternalTopicLog : public coordinator::OffsetsLog {
 public:
  InternalTopicLog(const BrokerSettings& settings, ReplicaManager& replicas, std::string topic,
                   int32_t configured_partitions, std::map<std::string, std::string> topic_configs);

  const std::string& topic() const { return topic_; }
  bool exists() const;
  // true when this call created the topic, false when it existed; an error
  // Status (with its Kafka code) when creation failed.
  Result<bool> ensure_created();

  int32_t partition_count() const override { return partitions_; }
  void append(int32_t partition, std::vector<coordinator::LogRecord> records,
              std::function<void(Status)> done) override;
  Status read_all(int32_t partition, const std::function<void(const coordinator::LogRecord&)>& visit) override;

 private:
  const BrokerSettings& settings_;
  ReplicaManager& replicas_;
  std::string topic_;
  int32_t partitions_;
  std::map<std::string, std::string> configs_;
  std::mutex create_mu_;
};

}  // namespace spool::broker
