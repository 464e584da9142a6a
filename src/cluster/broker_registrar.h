// BrokerRegistrar: a broker's membership in a ZooKeeper-mode cluster (Kafka's
// KafkaZkClient createTopLevelPaths, getClusterId/createOrGetClusterId and
// registerBroker).
//
// Contract
// - prepare(): creates Kafka's persistent top-level nodes (zk_paths::
//   persistent_paths) and returns the cluster id: the one in /cluster/id, or,
//   when absent, `proposed_cluster_id` written there (a race with another
//   broker is settled by the store: the loser reads the winner's id).
// - register_broker(): creates the ephemeral /brokers/ids/N with Kafka's v5
//   JSON and returns the broker epoch, the znode's czxid (KIP-380). If the
//   node exists and belongs to this session (a create retried after a lost
//   connection), its czxid is returned. If it belongs to another session,
//   that is usually this broker's previous process, killed less than a
//   session timeout ago: the call retries until `existing_wait_ms` has
//   passed, then fails naming the owning session. (Kafka fails at once
//   there; waiting out the old session makes a restart after kill -9 work.)
// - After the store reports kExpired the owner calls reconnect() on the
//   store and register_broker() again: the new epoch is larger.
// Threading: not thread-safe; called from the broker's cluster thread only.
// Blocks for store round trips and sleeps between retries, so never on a
// reactor thread.
// Failure: a StoreError turned into a Status naming the path and the code.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cluster/metadata_store.h"
#include "cluster/zk_data.h"
#include "util/status.h"

namespace spool::cluster {

struct RegistrarOptions {
  int32_t broker_id = 0;
  std::vector<EndPoint> endpoints;  // advertised listeners, first one preferred
  std::optional<std::string> rack;  // broker.rack
  std::string proposed_cluster_id;  // written to /cluster/id when absent
  int64_t existing_wait_ms = 36000;  // how long another session's registration is waited out
  int64_t retry_backoff_ms = 500;
  // Wall clock for the registration's timestamp and the retry deadline; the
  // default is the system clock. sleep_ms defaults to a real sleep.
  std::function<int64_t()> now_ms;
  std::function<void(int64_t)> sleep_ms;
};

class BrokerRegistrar {
 public:
  BrokerRegistrar(MetadataStore& store, RegistrarOptions options);

  Result<std::string> prepare();
  Result<int64_t> register_broker();

  // The epoch of the last successful registration; -1 before the first.
  int64_t broker_epoch() const { return broker_epoch_; }

 private:
  Status store_error(const std::string& what, const std::string& path, const StoreError& e) const;

  MetadataStore& store_;
  RegistrarOptions options_;
  int64_t broker_epoch_ = -1;
};

}  // namespace spool::cluster
