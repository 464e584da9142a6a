// DelayedProduce: an acks=all produce waiting for its partitions' data to be
// durable (Kafka's DelayedProduce; there the condition is the ISR, here with
// one node it is the group-committed fsync when durable.writes is on).
//
// Completes when every waited partition's fsynced offset has passed the
// batch's last offset (or its flush failed: KAFKA_STORAGE_ERROR), or expires
// after the request's timeout.ms, answering REQUEST_TIMED_OUT for the
// partitions still not durable. The flusher's callback for each partition
// records a failure, if any, and calls check_and_complete on the produce
// purgatory with the partition's key.
// Threading: try_complete runs under the operation's lock; the per-partition
// failure flags are atomics written from the flusher thread.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "broker/partition.h"
#include "broker/request_context.h"
#include "protocol/produce_response.h"
#include "timer/delayed_operation.h"

namespace spool::broker {

class DelayedProduce : public timer::DelayedOperation {
 public:
  struct Wait {
    std::shared_ptr<Partition> partition;
    int64_t last_offset = 0;
    // Where this partition's answer sits in the response (vectors are not
    // resized after the waits are built, so the pointer stays valid).
    protocol::ProduceResponse::PartitionProduceResponse* answer = nullptr;
    std::atomic<bool> failed{false};
  };

  DelayedProduce(int64_t timeout_ms, RequestContext ctx, protocol::ProduceResponse resp)
      : DelayedOperation(timeout_ms), ctx_(std::move(ctx)), resp_(std::move(resp)) {}

  // Only before the operation is handed to the purgatory.
  Wait& add_wait(std::shared_ptr<Partition> p, int64_t last_offset,
                 protocol::ProduceResponse::PartitionProduceResponse* answer);
  protocol::ProduceResponse& response() { return resp_; }
  std::vector<std::string> keys() const;

 protected:
  bool try_complete() override;
  void on_expiration() override;
  void on_complete() override;

 private:
  bool durable(const Wait& w) const;

  RequestContext ctx_;
  protocol::ProduceResponse resp_;
  std::vector<std::unique_ptr<Wait>> waits_;
};

}  // namespace spool::broker
