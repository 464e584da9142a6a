#include "util/serial_executor.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <exception>

namespace spool {

SerialExecutor::SerialExecutor(std::string name) : name_(std::move(name)) {
  thread_ = std::thread([this] { loop(); });
  pthread_setname_np(thread_.native_handle(), name_.substr(0, 15).c_str());
}

SerialExecutor::~SerialExecutor() { stop(); }

void SerialExecutor::post(std::function<void()> fn) {
  {
    std::lock_guard lk(mu_);
    if (!stopping_) {
      queue_.push_back(std::move(fn));
      cv_.notify_one();
      return;
    }
  }
  run(name_, fn);
}

void SerialExecutor::stop() {
  {
    std::lock_guard lk(mu_);
    if (stopping_) return;
    stopping_ = true;
    cv_.notify_one();
  }
  if (thread_.joinable()) {
    if (thread_.get_id() == std::this_thread::get_id()) {
      spdlog::error("{}: stop() called from its own thread; not joined", name_);
      thread_.detach();
      return;
    }
    thread_.join();
  }
}

void SerialExecutor::loop() {
  std::unique_lock lk(mu_);
  while (true) {
    cv_.wait(lk, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything queued has run
    auto fn = std::move(queue_.front());
    queue_.pop_front();
    lk.unlock();
    run(name_, fn);
    lk.lock();
  }
}

void SerialExecutor::run(const std::string& name, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    spdlog::error("{}: uncaught exception: {}", name, e.what());
  } catch (...) {
    spdlog::error("{}: uncaught exception", name);
  }
}

}  // namespace spool
