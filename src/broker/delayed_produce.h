// DelayedProduce: an acks=all produce waiting for its partitions' data to be
// durable (Kafka's DelayedProduce; there the condition is the ISR, here with
// one node it is the group-committed fsync when durable.writes is on).
//
// Made by ReplicaManager::append_records with the per-partition results of
// the append and the caller's callback. Completes when every waited
// partition's fsynced offset has passed the batch's last offset (or its flush
// failed: KAFKA_STORAGE_ERROR), or expires after the request's timeout.ms,
// answering REQUEST_TIMED_OUT for the partitions still not durable. The
// flusher's callback for each partition records a failure, if any, and calls
// check_and_complete on the produce purgatory with the partition's key.
// Threading: try_complete runs under the operation's lock; the per-partition
// failure flags are atomics written from the flusher thread. The callback
// runs exactly once, on whichever thread completed the operation.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "broker/partition.h"
#include "broker/replica_manager.h"
#include "timer/delayed_operation.h"

namespace spool::broker {

class DelayedProduce : public timer::DelayedOperation {
 public:
  struct Wait {
    std::shared_ptr<Partition> partition;
    int64_t last_offset = 0;
    size_t result = 0;  // index into results()
    std::atomic<bool> failed{false};
  };

  DelayedProduce(int64_t timeout_ms, std::vector<ProduceResult> results, ProduceCallback done)
      : DelayedOperation(timeout_ms), results_(std::move(results)), done_(std::move(done)) {}

  // Only before the operation is handed to the purgatory; `result` indexes results().
  Wait& add_wait(std::shared_ptr<Partition> p, int64_t last_offset, size_t result);
  const std::vector<ProduceResult>& results() const { return results_; }
  std::vector<std::string> keys() const;

 protected:
  bool try_complete() override;
  void on_expiration() override;
  void on_complete() override;

 private:
  bool durable(const Wait& w) const;

  std::vector<ProduceResult> results_;
  ProduceCallback done_;
  std::vector<std::unique_ptr<Wait>> waits_;
};

}  // namespace spool::broker
