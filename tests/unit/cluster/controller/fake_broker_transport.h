// FakeBrokerTransport: the in-memory BrokerTransport under a
// QueuedBrokerChannel for controller tests. It records every request handed
// to it, per broker and in order (retries included), and lets the test
// answer or fail the one in flight. With auto_answer on, every request is
// answered at once: by the responder when one is set, else with success (no
// partition errors).
// Thread-safe; callbacks run on the thread that answers.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/controller/queued_broker_channel.h"

namespace spool::cluster::controller::testing {

class FakeBrokerTransport final : public BrokerTransport {
 public:
  void set_auto_answer(bool on) {
    std::lock_guard<std::mutex> lock(mu_);
    auto_answer_ = on;
  }

  // The auto-answer to each request (empty: success).
  using Responder = std::function<ControllerResponse(int32_t broker, const ControllerRequest& request)>;
  void set_responder(Responder responder) {
    std::lock_guard<std::mutex> lock(mu_);
    responder_ = std::move(responder);
  }

  void connect(const BrokerInfo& broker) override {
    std::lock_guard<std::mutex> lock(mu_);
    connected_.insert(broker.id);
    connects_.push_back(broker);
  }
  void disconnect(int32_t broker) override {
    std::lock_guard<std::mutex> lock(mu_);
    connected_.erase(broker);
    pending_.erase(broker);
  }
  void send(int32_t broker, const ControllerRequest& request, Done done) override {
    bool answer_now = false;
    Responder responder;
    {
      std::lock_guard<std::mutex> lock(mu_);
      sent_[broker].push_back(request);
      all_.emplace_back(broker, request);
      answer_now = auto_answer_;
      responder = responder_;
      if (!answer_now) pending_[broker] = std::move(done);
    }
    if (answer_now) done(responder ? responder(broker, request) : ControllerResponse{});
  }

  // Answers (or fails: nullopt) broker's in-flight request. False if none.
  bool answer(int32_t broker, std::optional<ControllerResponse> response = ControllerResponse{}) {
    Done done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = pending_.find(broker);
      if (it == pending_.end()) return false;
      done = std::move(it->second);
      pending_.erase(it);
    }
    done(std::move(response));
    return true;
  }
  bool fail(int32_t broker) { return answer(broker, std::nullopt); }
  bool in_flight(int32_t broker) const {
    std::lock_guard<std::mutex> lock(mu_);
    return pending_.count(broker) != 0;
  }

  std::vector<ControllerRequest> sent(int32_t broker) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sent_.find(broker);
    return it == sent_.end() ? std::vector<ControllerRequest>{} : it->second;
  }
  // Names of the requests sent to broker, in order.
  std::vector<std::string> kinds(int32_t broker) const {
    std::vector<std::string> out;
    for (const auto& r : sent(broker)) out.push_back(request_name(r));
    return out;
  }
  std::vector<std::pair<int32_t, ControllerRequest>> all() const {
    std::lock_guard<std::mutex> lock(mu_);
    return all_;
  }
  bool connected(int32_t broker) const {
    std::lock_guard<std::mutex> lock(mu_);
    return connected_.count(broker) != 0;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    sent_.clear();
    all_.clear();
  }

 private:
  mutable std::mutex mu_;
  bool auto_answer_ = false;
  Responder responder_;
  std::set<int32_t> connected_;
  std::vector<BrokerInfo> connects_;
  std::map<int32_t, std::vector<ControllerRequest>> sent_;
  std::vector<std::pair<int32_t, ControllerRequest>> all_;
  std::map<int32_t, Done> pending_;
};

}  // namespace spool::cluster::controller::testing
