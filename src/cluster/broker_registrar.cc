#include "cluster/broker_registrar.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <thread>

#include "cluster/zk_paths.h"

namespace spool::cluster {
namespace {

int64_t system_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string hex(int64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

BrokerRegistrar::BrokerRegistrar(MetadataStore& store, RegistrarOptions options)
    : store_(store), options_(std::move(options)) {
  if (!options_.now_ms) options_.now_ms = system_now_ms;
  if (!options_.sleep_ms) {
    options_.sleep_ms = [](int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
  }
}

Status BrokerRegistrar::store_error(const std::string& what, const std::string& path, const StoreError& e) const {
  return Status::error(what + " " + path + ": " + store_code_name(e.code) + (e.message.empty() ? "" : " (" + e.message + ")"));
}

Result<std::string> BrokerRegistrar::prepare() {
  for (const auto& path : zk_paths::persistent_paths()) {
    auto r = ensure_path(store_, path);
    if (!r) return store_error("creating", path, r.error());
  }
  const std::string path(zk_paths::kClusterId);
  if (auto r = ensure_path(store_, std::string(zk_paths::kCluster)); !r) {
    return store_error("creating", std::string(zk_paths::kCluster), r.error());
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto got = store_.get(path);
    if (got) return decode_cluster_id(got->data);
    if (got.code() != StoreCode::kNoNode) return store_error("reading", path, got.error());
    if (options_.proposed_cluster_id.empty()) return Status::error("no cluster id in " + path + " and none proposed");
    auto created = store_.create(path, encode_cluster_id(options_.proposed_cluster_id));
    if (created) {
      spdlog::info("cluster: created cluster id {} in {}", options_.proposed_cluster_id, path);
      return options_.proposed_cluster_id;
    }
    if (created.code() != StoreCode::kNodeExists) return store_error("creating", path, created.error());
    // Another broker won the race: read its id.
  }
  return Status::error("cluster id in " + path + " kept changing");
}

Result<int64_t> BrokerRegistrar::register_broker() {
  const std::string path = zk_paths::broker_id(options_.broker_id);
  BrokerRegistration reg;
  reg.id = options_.broker_id;
  reg.endpoints = options_.endpoints;
  reg.rack = options_.rack;
  const int64_t deadline = options_.now_ms() + options_.existing_wait_ms;
  bool logged_wait = false;
  for (;;) {
    reg.timestamp_ms = options_.now_ms();
    auto created = store_.create(path, encode_broker(reg), CreateMode::kEphemeral);
    if (!created && created.code() != StoreCode::kNodeExists) return store_error("registering", path, created.error());
    auto stat = store_.exists(path);
    if (!stat) {
      // The old owner's session just ended: create again.
      if (stat.code() == StoreCode::kNoNode && options_.now_ms() < deadline) continue;
      return store_error("reading", path, stat.error());
    }
    if (stat->ephemeral_owner == store_.session_id()) {
      broker_epoch_ = stat->czxid;
      spdlog::info("cluster: registered broker {} at {} (broker epoch {}, session {})", options_.broker_id, path,
                   broker_epoch_, hex(store_.session_id()));
      return broker_epoch_;
    }
    if (options_.now_ms() >= deadline) {
      return Status::error("broker id " + std::to_string(options_.broker_id) + " is already registered at " + path +
                           " by another session (" + hex(stat->ephemeral_owner) +
                           "): another broker uses this broker.id, or its previous process's session has not "
                           "expired yet");
    }
    if (!logged_wait) {
      spdlog::warn("cluster: {} belongs to session {} (a previous process of this broker?); waiting up to {} ms for "
                   "it to expire",
                   path, hex(stat->ephemeral_owner), options_.existing_wait_ms);
      logged_wait = true;
    }
    options_.sleep_ms(options_.retry_backoff_ms);
  }
}

}  // namespace spool::cluster
