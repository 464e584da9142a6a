#include "cluster/controller/wire_transport.h"

#include <spdlog/spdlog.h>

#include "protocol/error_code.h"
#include "timer/timer_task.h"

namespace spool::cluster::controller {

namespace {

class CallTask final : public timer::TimerTask {
 public:
  CallTask(int64_t delay_ms, std::function<void()> fn) : TimerTask(delay_ms), fn_(std::move(fn)) {}
  void run() override { fn_(); }

 private:
  std::function<void()> fn_;
};

}  // namespace

struct WireTransport::Core {
  Core(WireTransportOptions o, client::NetworkClient& c, timer::SystemTimer& t)
      : options(std::move(o)), client(c), timer(t) {}

  const WireTransportOptions options;
  client::NetworkClient& client;
  timer::SystemTimer& timer;

  mutable std::mutex mu;
  std::map<int32_t, client::Node> nodes;
  bool closed = false;

  bool is_closed() const {
    std::lock_guard<std::mutex> l(mu);
    return closed;
  }

  // Reports the failure after the backoff (at once when closed).
  void fail_later(Done done) {
    if (is_closed()) {
      done(std::nullopt);
      return;
    }
    timer.add(std::make_shared<CallTask>(options.retry_backoff_ms, [done = std::move(done)] { done(std::nullopt); }));
  }

  std::pair<int16_t, int16_t> versions(const ControllerRequest& request) const {
    if (std::holds_alternative<LeaderAndIsrRequest>(request)) {
      return {options.leader_and_isr_min_version, options.leader_and_isr_max_version};
    }
    if (std::holds_alternative<UpdateMetadataRequest>(request)) {
      return {options.update_metadata_min_version, options.update_metadata_max_version};
    }
    return {options.stop_replica_min_version, options.stop_replica_max_version};
  }
};

WireTransport::WireTransport(WireTransportOptions options, client::NetworkClient& client, timer::SystemTimer& timer)
    : core_(std::make_shared<Core>(std::move(options), client, timer)) {}

WireTransport::~WireTransport() {
  std::lock_guard<std::mutex> l(core_->mu);
  core_->closed = true;
}

void WireTransport::connect(const BrokerInfo& broker) {
  const BrokerEndpoint* ep = nullptr;
  for (const auto& e : broker.endpoints) {
    if (e.listener == core_->options.listener) ep = &e;
  }
  std::optional<client::Node> old;
  {
    std::lock_guard<std::mutex> l(core_->mu);
    auto it = core_->nodes.find(broker.id);
    if (it != core_->nodes.end()) {
      old = it->second;
      core_->nodes.erase(it);
    }
    if (ep != nullptr && ep->port > 0 && ep->port <= 65535) {
      core_->nodes[broker.id] = client::Node{broker.id, ep->host, static_cast<uint16_t>(ep->port)};
    }
  }
  if (ep == nullptr || ep->port <= 0 || ep->port > 65535) {
    spdlog::error("controller transport: broker {} has no usable endpoint on listener {}; its requests fail",
                  broker.id, core_->options.listener);
  }
  std::optional<client::Node> now = node(broker.id);
  if (old && (!now || now->host != old->host || now->port != old->port)) core_->client.disconnect(*old);
}

void WireTransport::disconnect(int32_t broker) {
  std::optional<client::Node> old;
  {
    std::lock_guard<std::mutex> l(core_->mu);
    auto it = core_->nodes.find(broker);
    if (it == core_->nodes.end()) return;
    old = it->second;
    core_->nodes.erase(it);
  }
  core_->client.disconnect(*old);
}

std::optional<client::Node> WireTransport::node(int32_t broker) const {
  std::lock_guard<std::mutex> l(core_->mu);
  auto it = core_->nodes.find(broker);
  if (it == core_->nodes.end()) return std::nullopt;
  return it->second;
}

void WireTransport::send(int32_t broker, const ControllerRequest& request, Done done) {
  std::optional<client::Node> target = node(broker);
  if (!target) {
    // connect() logged the missing endpoint once; this repeats every backoff.
    spdlog::debug("controller transport: {} to broker {}: no endpoint on listener {}", request_name(request), broker,
                  core_->options.listener);
    core_->fail_later(std::move(done));
    return;
  }
  auto shared = std::make_shared<const ControllerRequest>(request);
  auto [min_version, max_version] = core_->versions(request);
  client::RawRequest raw;
  raw.api_key = controller_request_api_key(request);
  raw.min_version = min_version;
  raw.max_version = max_version;
  raw.timeout_ms = core_->options.request_timeout_ms;
  raw.encode = [shared](ByteWriter& w, int16_t version) { encode_controller_request(*shared, version, w); };
  std::shared_ptr<Core> core = core_;
  core_->client.send(*target, std::move(raw),
                     [core, shared, broker, done = std::move(done)](Result<client::RawResponse> r) mutable {
                       if (!r) {
                         spdlog::warn("controller transport: {} to broker {} failed ({}, {}); retrying in {} ms",
                                      request_name(*shared), broker,
                                      protocol::error_name(static_cast<protocol::ErrorCode>(r.status().kafka_code())),
                                      r.status().message(), core->options.retry_backoff_ms);
                         core->fail_later(std::move(done));
                         return;
                       }
                       std::optional<ControllerResponse> resp =
                           decode_controller_response(*shared, r->version, r->body());
                       if (!resp) {
                         spdlog::warn("controller transport: malformed {} v{} response from broker {}; retrying",
                                      request_name(*shared), r->version, broker);
                         core->fail_later(std::move(done));
                         return;
                       }
                       done(std::move(*resp));
                     });
}

}  // namespace spool::cluster::controller
