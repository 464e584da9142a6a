// QueuedBrokerChannel: the BrokerChannel of broker_channel.h over a
// BrokerTransport that can send one request asynchronously.
//
// Contract
// - Per broker: a FIFO queue, exactly one request handed to the transport at
//   a time; the next one goes only after the previous was answered.
// - The transport reports a response, or nullopt for a failure (connection
//   refused, timeout, ...). A failure re-sends the same request: forever, until
//   remove_broker(). Any backoff between attempts is the transport's (it
//   reports the failure only once it is ready to be retried); Kafka waits
//   retry.backoff.ms there.
// - Completions of a removed (or removed and re-added) broker are ignored:
//   every send carries the queue's generation.
// - The ResponseHandler runs on whatever thread completed the send, with no
//   lock held.
// Threading: all methods are thread-safe (one mutex, never held while calling
// the transport or the handler).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "cluster/controller/broker_channel.h"

namespace spool::cluster::controller {

class BrokerTransport {
 public:
  using Done = std::function<void(std::optional<ControllerResponse> response)>;
  virtual ~BrokerTransport() = default;
  // Connection management; connect may be called again with a new epoch.
  virtual void connect(const BrokerInfo& broker) = 0;
  virtual void disconnect(int32_t broker) = 0;
  // Sends one request; calls done exactly once (possibly before returning).
  virtual void send(int32_t broker, const ControllerRequest& request, Done done) = 0;
};

class QueuedBrokerChannel final : public BrokerChannel {
 public:
  explicit QueuedBrokerChannel(BrokerTransport& transport);
  ~QueuedBrokerChannel() override;

  void add_broker(const BrokerInfo& broker) override;
  void remove_broker(int32_t broker) override;
  bool has_broker(int32_t broker) const override;
  void send(int32_t broker, ControllerRequest request) override;
  void set_response_handler(ResponseHandler handler) override;
  void remove_all() override;

  // Requests queued for broker, the in-flight one included (tests, metrics).
  size_t queued(int32_t broker) const;

 private:
  struct Queue {
    uint64_t generation = 0;
    std::deque<ControllerRequest> pending;  // front is in flight when in_flight
    bool in_flight = false;
  };
  // Starts the front request of broker if nothing is in flight.
  void pump(int32_t broker);
  void on_done(int32_t broker, uint64_t generation, std::optional<ControllerResponse> response);

  BrokerTransport& transport_;
  mutable std::mutex mu_;
  std::map<int32_t, Queue> queues_;
  uint64_t next_generation_ = 1;
  std::shared_ptr<ResponseHandler> handler_;
  // Guards against completions during and after destruction: a completion
  // holds mu while it runs; the destructor takes mu and clears alive.
  struct Lifetime {
    std::recursive_mutex mu;
    bool alive = true;
  };
  std::shared_ptr<Lifetime> life_;
};

}  // namespace spool::cluster::controller
