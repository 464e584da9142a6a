#include "broker/group_service.h"

#include <spdlog/spdlog.h>

namespace spool::broker {

using protocol::ErrorCode;

coordinator::GroupCoordinatorOptions group_coordinator_options(const BrokerSettings& s) {
  coordinator::GroupCoordinatorOptions o;
  o.group_min_session_timeout_ms = s.group_min_session_timeout_ms;
  o.group_max_session_timeout_ms = s.group_max_session_timeout_ms;
  o.group_initial_rebalance_delay_ms = s.group_initial_rebalance_delay_ms;
  o.group_max_size = s.group_max_size;
  o.offset_metadata_max_bytes = s.offset_metadata_max_bytes;
  o.offsets_retention_ms = s.offsets_retention_ms;
  o.offsets_retention_check_interval_ms = s.offsets_retention_check_interval_ms;
  return o;
}

GroupService::GroupService(const BrokerSettings& settings, ReplicaManager& replicas,
                           coordinator::GroupCoordinatorOptions options)
    : cluster_(replicas.cluster_mode()),
      offsets_(settings, replicas),
      coordinator_(std::make_unique<coordinator::GroupCoordinator>(offsets_, std::move(options))) {}

GroupService::~GroupService() { shutdown(); }

void GroupService::load_all(bool log_progress) {
  const int32_t n = offsets_.partition_count();
  int failed = 0;
  for (int32_t p = 0; p < n && !stopping_.load(); ++p) {
    Status s = coordinator_->load_partition(p);
    if (!s) {
      ++failed;
      spdlog::error("loading {}-{} failed: {}", kOffsetsTopic, p, s.message());
    }
  }
  loaded_.store(true);
  if (log_progress) spdlog::info("group coordinator loaded {} partitions of {} ({} failed)", n, kOffsetsTopic, failed);
}

void GroupService::on_leadership(int32_t partition, bool leader) {
  if (stopping_.load()) return;
  if (!leader) {
    coordinator_->unload_partition(partition);
    return;
  }
  if (Status s = coordinator_->load_partition(partition); !s)
    spdlog::error("group coordinator: loading {}-{} failed: {}", kOffsetsTopic, partition, s.message());
  else
    spdlog::info("group coordinator: {}-{} loaded", kOffsetsTopic, partition);
}

void GroupService::start() {
  std::lock_guard lk(mu_);
  if (cluster_) {  // partitions come with leadership
    started_ = offsets_.exists();
    return;
  }
  if (started_ || !offsets_.exists()) return;
  started_ = true;
  loader_ = std::thread([this] { load_all(true); });
}

ErrorCode GroupService::ensure_offsets_topic() {
  std::lock_guard lk(mu_);
  if (started_) return ErrorCode::kNone;
  if (stopping_.load()) return ErrorCode::kCoordinatorNotAvailable;
  auto created = offsets_.ensure_created();
  if (!created) {
    spdlog::error("cannot create {}: {}", kOffsetsTopic, created.status().message());
    return ErrorCode::kCoordinatorNotAvailable;
  }
  started_ = true;
  if (cluster_) return ErrorCode::kNone;  // loaded when LeaderAndIsr makes this broker their leader
  // Freshly created partitions are empty: loading them is quick, and doing it
  // before answering spares the client a NOT_COORDINATOR round.
  load_all(false);
  return ErrorCode::kNone;
}

void GroupService::shutdown() {
  stopping_.store(true);
  std::thread loader;
  {
    std::lock_guard lk(mu_);
    loader = std::move(loader_);
  }
  if (loader.joinable()) loader.join();
  coordinator_->shutdown();
}

}  // namespace spool::broker
