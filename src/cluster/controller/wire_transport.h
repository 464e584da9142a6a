// WireTransport: the controller's BrokerTransport (queued_broker_channel.h)
// over client::NetworkClient: LeaderAndIsr / UpdateMetadata / StopReplica
// sent to each broker's inter-broker endpoint and answered as
// ControllerResponse values (conversions in controller_wire.h).
//
// Contract
// - connect(broker) records the endpoint on options.listener (Kafka's
//   inter.broker.listener.name, default "PLAINTEXT", the listener of
//   security.inter.broker.protocol); no I/O (NetworkClient connects on the
//   first send). A re-connect with a different endpoint closes the old
//   connection. disconnect() forgets the broker and closes its connection
//   (what is in flight fails and is reported as a failure).
// - send() negotiates the newest version both sides support within the
//   options' range per API (defaults: controller_wire.h's send versions),
//   encodes the request at it and decodes the response at it.
// - Failure (NETWORK_EXCEPTION, REQUEST_TIMED_OUT, UNSUPPORTED_VERSION, a
//   response that does not decode, an unknown broker or one without the
//   listener) is reported as nullopt only after options.retry_backoff_ms
//   (Kafka's retry.backoff.ms, 100), so QueuedBrokerChannel's immediate
//   re-send is paced. Errors inside a response are not failures: they are
//   the response.
// - done is called exactly once per send: on the NetworkClient's I/O thread,
//   on the timer's thread (after a backoff) or, after the transport is
//   destroyed, on whatever thread completes the send (with nullopt, at
//   once). The NetworkClient and the SystemTimer (started by the owner) must
//   outlive the transport; a backoff still pending in a destroyed timer is
//   dropped with it.
// Threading: all methods are thread-safe; no lock is held while calling the
// client or done.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "client/network_client.h"
#include "cluster/controller/controller_wire.h"
#include "cluster/controller/queued_broker_channel.h"
#include "timer/system_timer.h"

namespace spool::cluster::controller {

struct WireTransportOptions {
  std::string listener = "PLAINTEXT";  // inter.broker.listener.name
  int64_t retry_backoff_ms = 100;      // retry.backoff.ms
  int32_t request_timeout_ms = -1;     // -1: the client's request.timeout.ms
  int16_t leader_and_isr_min_version = kLeaderAndIsrMinSendVersion;
  int16_t leader_and_isr_max_version = kLeaderAndIsrMaxSendVersion;
  int16_t update_metadata_min_version = kUpdateMetadataMinSendVersion;
  int16_t update_metadata_max_version = kUpdateMetadataMaxSendVersion;
  int16_t stop_replica_min_version = kStopReplicaMinSendVersion;
  int16_t stop_replica_max_version = kStopReplicaMaxSendVersion;
};

class WireTransport final : public BrokerTransport {
 public:
  WireTransport(WireTransportOptions options, client::NetworkClient& client, timer::SystemTimer& timer);
  ~WireTransport() override;
  WireTransport(const WireTransport&) = delete;
  WireTransport& operator=(const WireTransport&) = delete;

  void connect(const BrokerInfo& broker) override;
  void disconnect(int32_t broker) override;
  void send(int32_t broker, const ControllerRequest& request, Done done) override;

  // The node a broker's requests go to (tests, logs); nullopt when unknown.
  std::optional<client::Node> node(int32_t broker) const;

 private:
  struct Core;
  std::shared_ptr<Core> core_;
};

}  // namespace spool::cluster::controller
