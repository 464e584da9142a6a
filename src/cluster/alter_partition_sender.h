// AlterPartitionSender: a broker's requests to the active controller
// (Kafka's AlterPartitionManager over its controller channel, plus the
// ControlledShutdown send of KafkaServer.controlledShutdown), over
// client::NetworkClient. Conversions in alter_partition_wire.h.
//
// Contract
// - The target is the controller the MetadataCache names (UpdateMetadata's
//   ControllerId), reached on its options.listener endpoint; it is looked up
//   again for every attempt, so a moved controller is followed as soon as
//   the cache learns of it.
// - AlterPartition: submit() queues one partition's proposed state; at most
//   one change per partition is pending (a second submit for it is refused
//   with false until the first is answered: Kafka's
//   OperationNotAttemptedException). At most ONE request is in flight;
//   what is submitted meanwhile goes, all together, in the next one.
//   The version is the newest the controller supports up to 3 (v2+ only
//   when every partition has a topic id).
// - Answers: each partition of a successful response completes its callback
//   (error or the new state) and leaves the queue; a partition the response
//   left out stays queued and is re-sent. A top-level error (NOT_CONTROLLER,
//   STALE_BROKER_EPOCH, ...), a network error or timeout, an undecodable
//   response, or no known controller keep everything queued and retry after
//   options.retry_backoff_ms (Kafka retries after 50 ms).
// - ControlledShutdown: one attempt per call (v3); the callback gets the
//   controller's reply (its ErrorCode may be NOT_CONTROLLER, STALE_BROKER_EPOCH
//   ...) or a Status for no controller / network failure. The caller retries
//   (controlled.shutdown.max.retries, controlled.shutdown.retry.backoff.ms).
// - shutdown() (also the destructor): nothing more is sent; callbacks of what
//   is still queued are never called. Callbacks run on the NetworkClient's I/O
//   thread or the timer's thread, never under the sender's lock; they may
//   call submit().
// - The NetworkClient, MetadataCache and SystemTimer (started by the owner)
//   must outlive the sender.
// Threading: all methods are thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "client/network_client.h"
#include "cluster/alter_partition_wire.h"
#include "cluster/metadata_cache.h"
#include "timer/system_timer.h"
#include "util/status.h"

namespace spool::cluster {

struct AlterPartitionSenderOptions {
  int32_t broker_id = -1;
  std::string listener = "PLAINTEXT";  // control.plane / inter.broker listener
  int64_t retry_backoff_ms = 50;       // Kafka's AlterPartitionManager retry delay
  int32_t request_timeout_ms = -1;     // -1: the client's request.timeout.ms
};

class AlterPartitionSender {
 public:
  using Callback = std::function<void(const AlterPartitionOutcome& outcome)>;
  using ShutdownCallback = std::function<void(Result<ControlledShutdownReply> reply)>;

  // broker_epoch: this broker's current registration epoch (read per send).
  AlterPartitionSender(AlterPartitionSenderOptions options, client::NetworkClient& client,
                       const MetadataCache& metadata, timer::SystemTimer& timer,
                       std::function<int64_t()> broker_epoch);
  ~AlterPartitionSender();
  AlterPartitionSender(const AlterPartitionSender&) = delete;
  AlterPartitionSender& operator=(const AlterPartitionSender&) = delete;

  // False (callback dropped) when a change of entry.partition is pending or
  // the sender is shut down.
  bool submit(AlterPartitionEntry entry, Callback callback);
  void controlled_shutdown(ShutdownCallback callback);
  void shutdown();

  // Partitions queued or in flight; whether a request is in flight.
  size_t pending() const;
  bool in_flight() const;

 private:
  struct Core;
  std::shared_ptr<Core> core_;
};

}  // namespace spool::cluster
