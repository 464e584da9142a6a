#include "cluster/controller/controller_event_manager.h"

#include <spdlog/spdlog.h>

namespace spool::cluster::controller {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

const char* event_name(const ControllerEvent& e) {
  static constexpr const char* kNames[] = {
      "Startup",          "ControllerChange",   "Reelect",       "Expire",
      "BrokerChange",     "BrokerModification", "TopicChange",   "PartitionModifications",
      "TopicDeletion",    "UncleanLeaderElectionEnable",         "BrokerResponse",
      "AlterPartition",   "ControlledShutdown", "ElectLeaders",  "AutoLeaderRebalance",
      "AlterPartitionReassignments",            "ListPartitionReassignments",
      "ZkPartitionReassignment",                "LogDirEventNotification",
      "RunEvent",
  };
  static_assert(std::size(kNames) == std::variant_size_v<ControllerEvent>);
  return kNames[e.index()];
}

void preempt_event(ControllerEvent& e) {
  std::visit(Overloaded{
                 [](AlterPartitionEvent& ev) {
                   if (ev.callback) ev.callback(AlterPartitionResult{protocol::ErrorCode::kNotController, {}});
                   ev.callback = nullptr;
                 },
                 [](ControlledShutdownEvent& ev) {
                   if (ev.callback) ev.callback(ControlledShutdownResult{protocol::ErrorCode::kNotController, {}});
                   ev.callback = nullptr;
                 },
                 [](AlterReassignmentsEvent& ev) {
                   if (ev.callback) ev.callback(protocol::ErrorCode::kNotController, {});
                   ev.callback = nullptr;
                 },
                 [](ListReassignmentsEvent& ev) {
                   if (ev.callback) ev.callback(protocol::ErrorCode::kNotController, {});
                   ev.callback = nullptr;
                 },
                 [](ElectLeadersEvent& ev) {
                   if (!ev.callback) return;
                   std::vector<ElectionResult> results;
                   for (const auto& tp : ev.partitions)
                     results.push_back(ElectionResult{tp, protocol::ErrorCode::kNotController, {}, -1});
                   ev.callback(results);
                   ev.callback = nullptr;
                 },
                 [](auto&) {},
             },
             e);
}

ControllerEventManager::ControllerEventManager(Processor processor) : processor_(std::move(processor)) {}

ControllerEventManager::~ControllerEventManager() { shutdown(); }

void ControllerEventManager::start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (started_ || stopping_) return;
  started_ = true;
  thread_ = std::thread([this] { loop(); });
}

bool ControllerEventManager::shutdown(std::chrono::milliseconds timeout) {
  std::deque<ControllerEvent> dropped;
  bool had_thread = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !thread_.joinable()) return true;
    stopping_ = true;
    dropped.swap(queue_);
    had_thread = thread_.joinable();
  }
  cv_.notify_all();
  for (auto& e : dropped) preempt_event(e);
  if (!had_thread) return true;
  bool in_time = true;
  {
    std::unique_lock<std::mutex> lock(mu_);
    in_time = idle_cv_.wait_for(lock, timeout, [this] { return exited_; });
  }
  if (!in_time) {
    spdlog::error("controller event thread did not stop within {} ms; waiting for the event in progress",
                  timeout.count());
  }
  thread_.join();
  return in_time;
}

void ControllerEventManager::put(ControllerEvent event) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      queue_.push_back(std::move(event));
      cv_.notify_one();
      return;
    }
  }
  preempt_event(event);
}

void ControllerEventManager::clear_and_put(ControllerEvent event) {
  std::deque<ControllerEvent> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      dropped.swap(queue_);
      queue_.push_back(std::move(event));
      cv_.notify_one();
    }
  }
  for (auto& e : dropped) preempt_event(e);
}

size_t ControllerEventManager::run_pending() {
  size_t ran = 0;
  for (;;) {
    ControllerEvent event;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (started_ || queue_.empty()) return ran;
      event = std::move(queue_.front());
      queue_.pop_front();
    }
    thread_id_ = std::this_thread::get_id();
    processor_(event);
    thread_id_ = std::thread::id();
    ++ran;
  }
}

bool ControllerEventManager::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_cv_.wait_for(lock, timeout, [this] { return (queue_.empty() && !busy_) || exited_; });
}

size_t ControllerEventManager::queue_size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void ControllerEventManager::loop() {
  thread_id_ = std::this_thread::get_id();
  for (;;) {
    ControllerEvent event;
    {
      std::unique_lock<std::mutex> lock(mu_);
      busy_ = false;
      idle_cv_.notify_all();
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) break;
      event = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    try {
      processor_(event);
    } catch (const std::exception& ex) {
      // The processor handles its own failures; this is a last resort so one
      // bad event does not kill the thread (Kafka logs and continues too).
      spdlog::error("controller event {} failed: {}", event_name(event), ex.what());
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  busy_ = false;
  exited_ = true;
  idle_cv_.notify_all();
}

}  // namespace spool::cluster::controller
