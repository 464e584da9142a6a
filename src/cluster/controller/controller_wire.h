// The controller's request values (broker_channel.h) on the wire: each one
// encoded as its generated protocol message at a given version, and each
// response decoded back into a ControllerResponse.
//
// Contract
// - Pure functions; no state; safe from any thread.
// - Every version of the messages can be written (tests and old brokers):
//   LeaderAndIsr v0-1 ungrouped partition states, v2+ topic states, v5+ with
//   topic ids; UpdateMetadata v0 V0Host/V0Port (the PLAINTEXT endpoint),
//   v1+ endpoints, v3+ listener names, v2+ rack, v0-4 ungrouped states, v4+
//   offline replicas, v5+ topic states, v7+ topic ids; StopReplica v0
//   ungrouped partitions, v1-2 topics with partition indexes (the request's
//   DeletePartitions is the first partition's flag: see below), v3+ per
//   partition LeaderEpoch and DeletePartition. Fields a version lacks are
//   dropped.
// - What Spool SENDS is narrower (WireTransport's default range): the first
//   version that carries everything the controller's values hold, which is
//   what Kafka 2.8's inter.broker.protocol.version sends: LeaderAndIsr v5
//   (topic ids, type) to v7, UpdateMetadata v7 (topic ids) to v8,
//   StopReplica v3 (per-partition epochs and delete flags) to v4. Below v3 a
//   StopReplica mixing delete and non-delete partitions cannot be expressed
//   (one flag per request): the controller never batches them together
//   (Kafka's ControllerChannelManager sends them as two requests), and the
//   encoder uses the flag of the first partition.
// - Responses: per-partition errors from both the ungrouped form (v0-4
//   LeaderAndIsr, every StopReplica) and the topic-id grouped form
//   (LeaderAndIsr v5+), topic ids mapped back to the names the request used;
//   an id the request did not carry is skipped (logged).
// - Failure: decode_controller_response returns nullopt for a body that
//   does not decode at its version.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "cluster/controller/broker_channel.h"
#include "protocol/leader_and_isr_request.h"
#include "protocol/leader_and_isr_response.h"
#include "protocol/stop_replica_request.h"
#include "protocol/stop_replica_response.h"
#include "protocol/update_metadata_request.h"
#include "protocol/update_metadata_response.h"
#include "util/bytes.h"

namespace spool::cluster::controller {

inline constexpr int16_t kLeaderAndIsrMinSendVersion = 5;
inline constexpr int16_t kLeaderAndIsrMaxSendVersion = 7;
inline constexpr int16_t kUpdateMetadataMinSendVersion = 7;
inline constexpr int16_t kUpdateMetadataMaxSendVersion = 8;
inline constexpr int16_t kStopReplicaMinSendVersion = 3;
inline constexpr int16_t kStopReplicaMaxSendVersion = 4;

protocol::LeaderAndIsrRequest leader_and_isr_to_wire(const LeaderAndIsrRequest& request, int16_t version);
protocol::UpdateMetadataRequest update_metadata_to_wire(const UpdateMetadataRequest& request, int16_t version);
protocol::StopReplicaRequest stop_replica_to_wire(const StopReplicaRequest& request, int16_t version);

ControllerResponse leader_and_isr_from_wire(const protocol::LeaderAndIsrResponse& response, int16_t version,
                                            const LeaderAndIsrRequest& request);
ControllerResponse update_metadata_from_wire(const protocol::UpdateMetadataResponse& response);
ControllerResponse stop_replica_from_wire(const protocol::StopReplicaResponse& response);

// The API key of the request's message (4, 6 or 5).
int16_t controller_request_api_key(const ControllerRequest& request);
// Encodes the request's body at `version` (in the message's range).
void encode_controller_request(const ControllerRequest& request, int16_t version, ByteWriter& w);
// Decodes a response body of `request`'s API at `version`.
std::optional<ControllerResponse> decode_controller_response(const ControllerRequest& request, int16_t version,
                                                             ByteSpan body);

}  // namespace spool::cluster::controller
