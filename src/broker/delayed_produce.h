// DelayedProduce: an acks=all produce waiting until each appended
// partition's high watermark reaches the offset after its batches (Kafka's
// DelayedProduce and Partition.checkEnoughReplicasReachOffset). On one node
// the high watermark is the fsynced offset with durable.writes, so this waits
// for the group-committed fsync; in a cluster it will be the ISR's progress.
//
// Made by ReplicaManager::append_records with the per-partition results of
// the append and the caller's callback, and watched in the produce purgatory
// under each waited partition's key; the partition's high-watermark listener
// (ReplicaManager::hw_listener) calls check_and_complete with that key when
// the high watermark may have moved or a flush failed. Completes when every
// waited partition has reached its offset or answered an error
// (KAFKA_STORAGE_ERROR after a failed fsync), or expires after the request's
// timeout.ms, answering REQUEST_TIMED_OUT for the partitions still short.
// Threading: try_complete only reads partition state (under the operation's
// lock); the results are written by on_expiration/on_complete, which run on
// the single thread that completed the operation, and the callback runs once
// there (a request, flusher or reaper thread).
#pragma once

#include <memory>
#include <vector>

#include "broker/partition.h"
#include "broker/replica_manager.h"
#include "timer/delayed_operation.h"

namespace spool::broker {

class DelayedProduce : public timer::DelayedOperation {
 public:
  struct Wait {
    std::shared_ptr<Partition> partition;
    int64_t required_offset = 0;  // the batches' last offset + 1
    size_t result = 0;            // index into results()
  };

  DelayedProduce(int64_t timeout_ms, std::vector<ProduceResult> results, ProduceCallback done)
      : DelayedOperation(timeout_ms), results_(std::move(results)), done_(std::move(done)) {}

  // Only before the operation is handed to the purgatory; `result` indexes results().
  void add_wait(std::shared_ptr<Partition> p, int64_t required_offset, size_t result);
  const std::vector<ProduceResult>& results() const { return results_; }
  std::vector<TopicPartition> keys() const;

 protected:
  bool try_complete() override;
  void on_expiration() override;
  void on_complete() override;

 private:
  std::vector<ProduceResult> results_;
  ProduceCallback done_;
  std::vector<Wait> waits_;
};

}  // namespace spool::broker
