// OffsetsTopic: the broker's implementation of coordinator::OffsetsLog over
// the internal topic __consumer_offsets (compacted, offsets.topic.* settings).
//
// The topic is not created here at construction: ensure_created() makes it on
// first need (the first FindCoordinator) and reports whether this call did.
// partition_count() is fixed for the object's life: the existing topic's count
// when it is registered at construction, else offsets.topic.num.partitions, so
// a group's partition never changes under the coordinator.
// append() builds one uncompressed batch (CreateTime = now), appends it to the
// partition and answers once the records are durable. read_all() replays a
// partition from its log start to the end it has when the call starts.
// append_transactional() builds a TRANSACTIONAL batch of the producer and
// appends it through the partition's producer state like a client's batch:
// the coordinator numbers that producer's batches on the partition itself
// (sequence = the producer's last + 1 at its epoch, 0 for a new epoch), as
// the request carries no sequence; a stale epoch fails INVALID_PRODUCER_EPOCH.
// replay() reports records with their batch's producer and the COMMIT/ABORT
// markers of control batches, in offset order.
// Failure: a missing partition answers COORDINATOR_NOT_AVAILABLE, an oversized
// batch RECORD_LIST_TOO_LARGE, I/O errors their storage code.
// Threading: every method may be called from any thread; ensure_created() is
// serialised internally.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "broker/broker_settings.h"
#include "broker/replica_manager.h"
#include "broker/topic_name.h"
#include "coordinator/group/offsets_log.h"

namespace spool::broker {

inline constexpr const char* kOffsetsTopic = kConsumerOffsetsTopic;

class OffsetsTopic : public coordinator::OffsetsLog {
 public:
  OffsetsTopic(const BrokerSettings& settings, ReplicaManager& replicas);

  bool exists() const;
  // Creates __consumer_offsets when it does not exist yet. Returns true when
  // this call created it, false when it already existed; an error Status
  // (with its Kafka code) when creation failed.
  Result<bool> ensure_created();
  // The topic configs the broker creates it with (cleanup.policy=compact,
  // segment.bytes=offsets.topic.segment.bytes).
  std::map<std::string, std::string> topic_configs() const;

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

  const BrokerSettings& settings_;
  ReplicaManager& replicas_;
  int32_t partitions_;
  std::mutex create_mu_;
  // Serialises "read the producer's last sequence, append the next" of
  // transactional appends.
  std::mutex txn_append_mu_;
};

}  // namespace spool::broker
