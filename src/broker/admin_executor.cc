#include "broker/admin_executor.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <utility>

#include "protocol/error_code.h"

namespace spool::broker {
namespace {

Status stopped_error(const std::string& name) {
  return Status::error(name + " executor stopped: the broker is shutting down",
                       static_cast<int16_t>(protocol::ErrorCode::kNotController));
}

// Runs one callback of a job; an exception is logged, never propagated (it
// would end the executor thread or the caller of stop()).
template <typename F>
void run_guarded(const std::string& name, const std::string& what, const char* phase, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    spdlog::error("{}: {} of '{}' threw: {}", name, phase, what, e.what());
  } catch (...) {
    spdlog::error("{}: {} of '{}' threw", name, phase, what);
  }
}

}  // namespace

AdminExecutor::AdminExecutor(Options options) : options_(std::move(options)) {
  thread_ = std::thread([this] { loop(); });
}

AdminExecutor::~AdminExecutor() { stop(); }

bool AdminExecutor::submit(std::string what, Work work, Fail fail) {
  Status refused;
  {
    std::lock_guard lk(mu_);
    if (stopping_) {
      refused = stopped_error(options_.name);
    } else if (jobs_.size() >= std::max<size_t>(1, options_.max_queued)) {
      refused = Status::error(options_.name + " executor queue is full (" + std::to_string(jobs_.size()) +
                                  " jobs waiting)",
                              static_cast<int16_t>(protocol::ErrorCode::kRequestTimedOut));
    } else {
      jobs_.push_back(Job{std::move(what), std::move(work), std::move(fail)});
      cv_.notify_one();
      return true;
    }
  }
  spdlog::warn("{}: refusing '{}': {}", options_.name, what, refused.message());
  run_guarded(options_.name, what, "fail", [&] { fail(refused); });
  return false;
}

void AdminExecutor::stop() {
  if (on_executor_thread()) {
    spdlog::error("{}: stop() called from one of its own jobs; ignored", options_.name);
    return;
  }
  std::lock_guard stop_lk(stop_mu_);
  std::deque<Job> left;
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
    left.swap(jobs_);
    cv_.notify_all();
  }
  if (!left.empty()) spdlog::info("{}: failing {} queued job(s) at shutdown", options_.name, left.size());
  const Status err = stopped_error(options_.name);
  for (auto& job : left) run_guarded(options_.name, job.what, "fail", [&] { job.fail(err); });
  if (thread_.joinable()) thread_.join();  // after the running job, if any
}

size_t AdminExecutor::queued() const {
  std::lock_guard lk(mu_);
  return jobs_.size();
}

void AdminExecutor::loop() {
  pthread_setname_np(pthread_self(), options_.name.substr(0, 15).c_str());
  for (;;) {
    Job job;
    {
      std::unique_lock lk(mu_);
      cv_.wait(lk, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;  // stop() fails whatever is still queued
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    run_guarded(options_.name, job.what, "work", [&] { job.work(); });
  }
}

}  // namespace spool::broker
