#include "broker/txn_service.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "broker/topic_name.h"

namespace spool::broker {

using protocol::ErrorCode;

coordinator::TxnCoordinatorOptions txn_coordinator_options(const BrokerSettings& s,
                                                           std::function<int32_t(const std::string&)> group_partition) {
  coordinator::TxnCoordinatorOptions o;
  o.transaction_max_timeout_ms = s.transaction_max_timeout_ms;
  o.transactional_id_expiration_ms = s.transactional_id_expiration_ms;
  o.abort_timed_out_interval_ms = s.transaction_abort_timed_out_interval_ms;
  o.remove_expired_interval_ms = s.transaction_remove_expired_interval_ms;
  o.offsets_topic = kConsumerOffsetsTopic;
  o.group_partition_for = std::move(group_partition);
  return o;
}

TxnService::TxnService(BrokerContext& ctx, coordinator::TxnCoordinatorOptions options)
    : cluster_(ctx.replicas.cluster_mode()),
      log_(ctx.settings, ctx.replicas, kTransactionStateTopic, ctx.settings.transaction_state_log_num_partitions,
           {{"cleanup.policy", "compact"},
            {"segment.bytes", std::to_string(ctx.settings.transaction_state_log_segment_bytes)},
            // Like its replication factor, capped by the replicas there are:
            // one on a single node.
            {"min.insync.replicas", std::to_string(std::min(ctx.settings.transaction_state_log_min_isr, 1))}}),
      markers_(ctx, cluster_),
      ids_(ctx.producer_ids),
      coordinator_(std::make_unique<coordinator::TxnCoordinator>(log_, markers_, ids_, std::move(options))) {}

TxnService::~TxnService() { shutdown(); }

void TxnService::load_all(bool log_progress) {
  const int32_t n = log_.partition_count();
  int failed = 0;
  for (int32_t p = 0; p < n && !stopping_.load(); ++p) {
    if (Status s = coordinator_->load_partition(p); !s) {
      ++failed;
      spdlog::error("loading {}-{} failed: {}", kTransactionStateTopic, p, s.message());
    }
  }
  loaded_.store(true);
  if (log_progress)
    spdlog::info("transaction coordinator loaded {} partitions of {} ({} failed)", n, kTransactionStateTopic, failed);
}

void TxnService::on_leadership(int32_t partition, bool leader, int32_t leader_epoch) {
  if (stopping_.load()) return;
  if (!leader) {
    coordinator_->unload_partition(partition);
    return;
  }
  if (Status s = coordinator_->load_partition(partition, std::max(leader_epoch, 0)); !s)
    spdlog::error("transaction coordinator: loading {}-{} failed: {}", kTransactionStateTopic, partition, s.message());
  else
    spdlog::info("transaction coordinator: {}-{} loaded (coordinator epoch {})", kTransactionStateTopic, partition,
                 leader_epoch);
}

void TxnService::start() {
  std::lock_guard lk(mu_);
  if (cluster_) {  // partitions come with leadership
    started_ = log_.exists();
    return;
  }
  if (started_ || !log_.exists()) return;
  started_ = true;
  loader_ = std::thread([this] { load_all(true); });
}

ErrorCode TxnService::ensure_state_topic() {
  std::lock_guard lk(mu_);
  if (started_) return ErrorCode::kNone;
  if (stopping_.load()) return ErrorCode::kCoordinatorNotAvailable;
  auto created = log_.ensure_created();
  if (!created) {
    spdlog::error("cannot create {}: {}", kTransactionStateTopic, created.status().message());
    return ErrorCode::kCoordinatorNotAvailable;
  }
  started_ = true;
  if (cluster_) return ErrorCode::kNone;  // loaded when LeaderAndIsr makes this broker their leader
  load_all(false);  // empty partitions: quick, and spares a NOT_COORDINATOR round
  return ErrorCode::kNone;
}

void TxnService::shutdown() {
  stopping_.store(true);
  std::thread loader;
  {
    std::lock_guard lk(mu_);
    loader = std::move(loader_);
  }
  if (loader.joinable()) loader.join();
  coordinator_->shutdown();
  markers_.shutdown();  // remote marker sends in flight fail (the coordinator ignores them now)
}

}  // namespace spool::broker
