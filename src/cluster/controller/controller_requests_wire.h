// The controller's side of the broker -> controller requests on the wire:
// AlterPartitionRequest (v0-3) into the controller's AlterPartitionRequest
// value (controller_events.h) and its AlterPartitionResult back into an
// AlterPartitionResponse; ControlledShutdownRequest (v0-3) into its inputs
// and ControlledShutdownResult into the response.
//
// Contract
// - Pure functions; safe from any thread.
// - AlterPartition v2+ names topics by id. The controller's value is keyed by
//   name, so ids are resolved through `names` (the caller's view of the
//   controller's topic ids); a partition whose id does not resolve is left
//   out of the request and answered UNKNOWN_TOPIC_ID (Kafka's
//   tryProcessAlterPartition). v3's NewIsrWithEpochs is read as its broker
//   ids: a ZooKeeper-mode controller does not check ISR members' epochs
//   (KIP-903 is KRaft-only).
// - The response lists the request's topics in request order, each
//   partition with its result (or UNKNOWN_TOPIC_ID); a top-level error
//   (NOT_CONTROLLER, STALE_BROKER_EPOCH) is sent with no topics, as Kafka
//   does. A request partition with no result is answered
//   UNKNOWN_SERVER_ERROR (it cannot happen with the Controller).
// - ControlledShutdown before v2 has no BrokerEpoch: -1 (not checked).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/controller/controller_events.h"
#include "protocol/alter_partition_request.h"
#include "protocol/alter_partition_response.h"
#include "protocol/controlled_shutdown_request.h"
#include "protocol/controlled_shutdown_response.h"

namespace spool::cluster::controller {

using TopicNameLookup = std::function<std::optional<std::string>(const TopicId&)>;

struct AlterPartitionInput {
  int16_t version = 0;
  AlterPartitionRequest request;                // partitions whose topic is known, request order
  std::map<std::string, TopicId> resolved_ids;  // v2+: name -> the id the request used
  // The request's topics in order (id at v2+, name before) with their
  // partitions: the shape of the response.
  struct Topic {
    std::string name;       // empty when the id did not resolve
    TopicId id{};
    std::vector<int32_t> partitions;
  };
  std::vector<Topic> topics;
};
AlterPartitionInput alter_partition_from_wire(const protocol::AlterPartitionRequest& request, int16_t version,
                                              const TopicNameLookup& names);
protocol::AlterPartitionResponse alter_partition_response(const AlterPartitionInput& input,
                                                          const AlterPartitionResult& result);

struct ControlledShutdownInput {
  int32_t broker_id = -1;
  int64_t broker_epoch = -1;
  bool operator==(const ControlledShutdownInput&) const = default;
};
ControlledShutdownInput controlled_shutdown_from_wire(const protocol::ControlledShutdownRequest& request,
                                                      int16_t version);
protocol::ControlledShutdownResponse controlled_shutdown_response(const ControlledShutdownResult& result);

}  // namespace spool::cluster::controller
