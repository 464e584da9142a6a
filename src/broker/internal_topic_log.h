// InternalTopicLog: coordinator::OffsetsLog over a compacted internal topic
// of this broker: __transaction_state directly, __consumer_offsets through
// OffsetsTopic (which only names the topic and its configs).
//
// The topic is created on first need by ensure_created(). partition_count()
// is fixed for the object's life (the existing topic's count, else the
// configured one), so an id's partition never changes under a coordinator.
// append() writes one uncompressed batch (CreateTime = now) and answers once
// durable: on one node once fsynced, in a cluster once the high watermark
// passes it (acks=all through ReplicaManager, 5 s bound); a partition this
// broker follows answers NOT_COORDINATOR. read_all() replays from log start to the end at call time, skipping
// control batches.
// append_transactional() builds a TRANSACTIONAL batch of the producer and
// appends it through the partition's producer state like a client's batch:
// the coordinator numbers that producer's batches on the partition itself
// (sequence = the producer's last + 1 at its epoch, 0 for a new epoch), as
// the request carries no sequence; a stale epoch fails INVALID_PRODUCER_EPOCH.
// replay() reports records with their batch's producer and the COMMIT/ABORT
// markers of control batches, in offset order.
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
  // The configs the topic is created with.
  const std::map<std::string, std::string>& topic_configs() const { return configs_; }
  bool exists() const;
  // true when this call created the topic, false when it existed; an error
  // Status (with its Kafka code) when creation failed.
  Result<bool> ensure_created();

  int32_t partition_count() const override { return partitions_; }
  void append(int32_t partition, std::vector<coordinator::LogRecord> records,
              std::function<void(Status)> done) override;
  Status read_all(int32_t partition, const std::function<void(const coordinator::LogRecord&)>& visit) override;
  void append_transactional(int32_t partition, const coordinator::TxnProducer& producer,
                            std::vector<coordinator::LogRecord> records, std::function<void(Status)> done) override;
  Status replay(int32_t partition, const std::function<void(const coordinator::ReplayEntry&)>& visit) override;

 private:
  void append_batch(int32_t partition, const coordinator::TxnProducer* producer,
                    std::vector<coordinator::LogRecord> records, std::function<void(Status)> done);
  // Cluster mode: the batch goes through ReplicaManager::append_records
  // (acks=all); txn_lock (if held) is released once it is appended.
  void append_replicated(const std::shared_ptr<Partition>& part, Bytes& batch, std::unique_lock<std::mutex> txn_lock,
                         std::function<void(Status)> done);

  const BrokerSettings& settings_;
  ReplicaManager& replicas_;
  std::string topic_;
  int32_t partitions_;
  std::map<std::string, std::string> configs_;
  std::mutex create_mu_;
  // Serialises "read the producer's last sequence, append the next" of
  // transactional appends.
  std::mutex txn_append_mu_;
};

}  // namespace spool::broker
