// DynamicBrokerConfig: this broker's dynamic configuration (Kafka's
// DynamicBrokerConfig with its BrokerConfigHandler). It holds the current
// config::BrokerConfigLayers (static, the cluster default
// /config/brokers/<default>, this broker's /config/brokers/<id>), keeps the
// shared TopicDefaults (every topic without an override uses them) in step,
// and tells the broker's services through one applier what changed (run.cc:
// the replication throttle rates, max.connections, ...).
//
// Where the layers come from: load() reads both entities from the metadata
// store at start (before any partition opens); in a cluster every broker's
// ConfigChanges listener hands each later change of "brokers/<default>" or
// "brokers/<id>" to apply_stored(); on a single node alter() applies the
// change itself after writing it to the embedded store (nobody else needs a
// notification). Entries of a stored entity that fail validation are logged
// and dropped, the others applied (Kafka's fromPersistentProps): bad input
// in the store never stops the broker.
//
// alter() is the write path of AlterConfigs and IncrementalAlterConfigs on a
// BROKER resource: read the entity, edit, validate the whole new set
// (dynamic_keys.h, then the effective config must resolve), write it back
// only over the version read (a concurrent writer re-runs the edit, up to
// kMaxAlterAttempts), with a change notification in a cluster. The Status
// carries Kafka's error code. validate_only stops after the validation.
//
// Threading: current() from any thread (a snapshot). Changes (load,
// apply_stored, alter) are serialized; the applier runs on the changing
// thread, after the new layers are visible, and must not call back into a
// change. Blocking store calls: never on a
// reactor (the admin executor, the config-change thread, start-up).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "broker/broker_settings.h"
#include "cluster/metadata_store.h"
#include "cluster/zk_data.h"
#include "config/broker_config_layers.h"
#include "util/status.h"

namespace spool::broker {

class DynamicBrokerConfig {
 public:
  using Layers = std::shared_ptr<const config::BrokerConfigLayers>;
  using Applier =
      std::function<void(const config::BrokerConfigLayers& before, const config::BrokerConfigLayers& after)>;
  using Edit = std::function<Status(config::DynamicConfigs&)>;
  static constexpr int kMaxAlterAttempts = 10;

  // `topic_defaults` is BrokerSettings::topic_defaults (shared): replaced at
  // every change with the topic defaults of the effective config.
  DynamicBrokerConfig(const config::BrokerConfig& static_config, int32_t broker_id,
                      std::shared_ptr<TopicDefaults> topic_defaults);

  Layers current() const;
  int32_t broker_id() const { return broker_id_; }

  // Reads /config/brokers/<default> and /config/brokers/<id> and applies
  // them. A store error is returned (nothing applied); a node that does not
  // decode is logged and counts as empty.
  Status load(cluster::MetadataStore& store);

  // An entity's whole stored set: "<default>", or this broker's id (other
  // ids are not ours: ignored).
  void apply_stored(const std::string& entity, const cluster::EntityConfig& stored);

  // `per_broker`: this broker's entity, else the cluster default. `notify`:
  // write a change notification (cluster) instead of applying here (single
  // node). Errors: INVALID_REQUEST, INVALID_CONFIG (dynamic_keys.h, or the
  // effective config not resolving), UNKNOWN_SERVER_ERROR (store), or the
  // edit's own Status.
  Status alter(cluster::MetadataStore& store, bool per_broker, const Edit& edit, bool validate_only, bool notify);

  // Set once the services exist; runs at once with (static only, current),
  // so what load() read is applied to them too.
  void set_applier(Applier applier);

 private:
  // Validates a would-be layer against the current other layer; returns the
  // normalized set.
  Result<config::DynamicConfigs> validate_layer(const config::DynamicConfigs& configs, bool per_broker) const;
  // Swaps in new layers and applies them (change_mu_ held).
  void install_locked(config::DynamicConfigs per_broker, config::DynamicConfigs cluster_default);
  // The entries of a stored set that pass validation on their own.
  config::DynamicConfigs usable(const cluster::EntityConfig& stored, bool per_broker, const std::string& path) const;

  const int32_t broker_id_;
  std::shared_ptr<const config::BrokerConfig> static_;
  std::shared_ptr<TopicDefaults> topic_defaults_;
  std::mutex change_mu_;  // serializes changes and the applier
  Applier applier_;
  mutable std::mutex mu_;  // guards layers_
  Layers layers_;
};

}  // namespace spool::broker
