#include "broker/log_dir_failure_handler.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "broker/replica_manager.h"
#include "cluster/metadata_store.h"
#include "cluster/zk_data.h"
#include "cluster/zk_paths.h"
#include "storage/log_manager.h"

namespace spool::broker {

LogDirFailureHandler::LogDirFailureHandler(storage::LogManager& logs, ReplicaManager& replicas,
                                           cluster::MetadataStore* store, int32_t broker_id)
    : logs_(logs), replicas_(replicas), store_(store), broker_id_(broker_id) {}

LogDirFailureHandler::~LogDirFailureHandler() { stop(); }

void LogDirFailureHandler::start() {
  logs_.set_dir_failure_listener([this](const std::string& root, const std::string& why) {
    executor_.submit(
        "log dir " + root + " failed", [this, root, why] { handle(root, why); },
        [root](const Status& s) { spdlog::error("log dir {} failed, not handled: {}", root, s.message()); });
  });
}

void LogDirFailureHandler::stop() {
  logs_.set_dir_failure_listener({});
  stopping_.store(true);
  executor_.stop();
}

void LogDirFailureHandler::handle(const std::string& root, const std::string& why) {
  if (logs_.offline_dirs().size() >= logs_.log_dirs().size()) {
    spdlog::critical("every log dir is offline (the last, {}: {}); halting", root, why);
    spdlog::shutdown();  // flushes the log sinks
    std::_Exit(1);
  }
  auto offline = replicas_.take_offline_partitions();
  spdlog::error("log dir {} failed ({}); {} hosted partition(s) taken offline", root, why, offline.size());
  if (store_ != nullptr) notify_controller();
}

void LogDirFailureHandler::notify_controller() {
  const std::string data = cluster::encode_log_dir_event(broker_id_);
  for (int attempt = 1; !stopping_.load(); ++attempt) {
    auto created = store_->create(cluster::zk_paths::log_dir_event_prefix(), data,
                                  cluster::CreateMode::kPersistentSequential);
    if (created) {
      spdlog::info("log dir failure announced to the controller at {}", created.value());
      return;
    }
    spdlog::warn("announcing a log dir failure (attempt {}): {}; retrying", attempt, created.error().message);
    for (int i = 0; i < 10 && !stopping_.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace spool::broker
