#include "cluster/controller/queued_broker_channel.h"

#include <spdlog/spdlog.h>

namespace spool::cluster::controller {

const char* request_name(const ControllerRequest& r) {
  switch (r.index()) {
    case 0: return "LeaderAndIsr";
    case 1: return "UpdateMetadata";
    default: return "StopReplica";
  }
}

QueuedBrokerChannel::QueuedBrokerChannel(BrokerTransport& transport)
    : transport_(transport), handler_(std::make_shared<ResponseHandler>()), life_(std::make_shared<Lifetime>()) {}

QueuedBrokerChannel::~QueuedBrokerChannel() {
  // Waits for a completion that is running on a transport thread (it holds
  // life_->mu), and makes later ones return without touching this object.
  std::lock_guard<std::recursive_mutex> life(life_->mu);
  life_->alive = false;
  std::lock_guard<std::mutex> lock(mu_);
  queues_.clear();
}

void QueuedBrokerChannel::add_broker(const BrokerInfo& broker) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queues_.count(broker.id) != 0) return;  // Kafka: addBroker is idempotent
    Queue q;
    q.generation = next_generation_++;
    queues_.emplace(broker.id, std::move(q));
  }
  transport_.connect(broker);
}

void QueuedBrokerChannel::remove_broker(int32_t broker) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queues_.erase(broker) == 0) return;
  }
  transport_.disconnect(broker);
}

bool QueuedBrokerChannel::has_broker(int32_t broker) const {
  std::lock_guard<std::mutex> lock(mu_);
  return queues_.count(broker) != 0;
}

void QueuedBrokerChannel::remove_all() {
  std::vector<int32_t> ids;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, q] : queues_) ids.push_back(id);
    queues_.clear();
  }
  for (int32_t id : ids) transport_.disconnect(id);
}

size_t QueuedBrokerChannel::queued(int32_t broker) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = queues_.find(broker);
  return it == queues_.end() ? 0 : it->second.pending.size();
}

void QueuedBrokerChannel::set_response_handler(ResponseHandler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  handler_ = std::make_shared<ResponseHandler>(std::move(handler));
}

void QueuedBrokerChannel::send(int32_t broker, ControllerRequest request) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = queues_.find(broker);
    if (it == queues_.end()) {
      spdlog::warn("controller channel: dropping {} for broker {}: no channel to it", request_name(request), broker);
      return;
    }
    it->second.pending.push_back(std::move(request));
  }
  pump(broker);
}

void QueuedBrokerChannel::pump(int32_t broker) {
  ControllerRequest copy;
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = queues_.find(broker);
    if (it == queues_.end() || it->second.in_flight || it->second.pending.empty()) return;
    it->second.in_flight = true;
    copy = it->second.pending.front();
    generation = it->second.generation;
  }
  std::weak_ptr<Lifetime> weak = life_;
  transport_.send(broker, copy, [this, weak, broker, generation](std::optional<ControllerResponse> response) {
    auto life = weak.lock();
    if (!life) return;
    std::lock_guard<std::recursive_mutex> hold(life->mu);  // recursive: a transport may complete inside send()
    if (!life->alive) return;
    on_done(broker, generation, std::move(response));
  });
}

void QueuedBrokerChannel::on_done(int32_t broker, uint64_t generation, std::optional<ControllerResponse> response) {
  std::optional<ControllerRequest> answered;
  std::shared_ptr<ResponseHandler> handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = queues_.find(broker);
    if (it == queues_.end() || it->second.generation != generation || !it->second.in_flight) return;
    it->second.in_flight = false;
    if (response) {
      answered = std::move(it->second.pending.front());
      it->second.pending.pop_front();
      handler = handler_;
    } else {
      spdlog::debug("controller channel: {} to broker {} failed; retrying", request_name(it->second.pending.front()),
                    broker);
    }
  }
  if (answered && handler && *handler) (*handler)(broker, *answered, *response);
  pump(broker);
}

}  // namespace spool::cluster::controller
