// BrokerConfigLayers: one immutable view of a broker's configuration with
// its dynamic layers, in Kafka's order of precedence per key:
//   dynamic per-broker (/config/brokers/<id>)
//   > dynamic cluster default (/config/brokers/<default>)
//   > static (server.properties and --override)
//   > the key's default.
// effective() is the BrokerConfig the broker runs with: the static keys, then
// the default layer, then the per-broker layer applied on top, each key
// first removing its synonyms (Kafka's DynamicBrokerConfig.overrideProps:
// a dynamic log.retention.ms also hides a static log.retention.hours), then
// resolved as at start (broker_config.h).
//
// The layers hold normalized values (dynamic_keys.h validated them). make()
// fails only when the combination does not resolve (the Status names the
// key, kafka_code 40). Immutable: share it freely between threads
// (std::shared_ptr<const BrokerConfigLayers>).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "config/broker_config.h"
#include "util/status.h"

namespace spool::config {

using DynamicConfigs = std::map<std::string, std::string>;

class BrokerConfigLayers {
 public:
  // Only the static layer (no dynamic configs).
  explicit BrokerConfigLayers(std::shared_ptr<const BrokerConfig> static_config);

  static Result<BrokerConfigLayers> make(std::shared_ptr<const BrokerConfig> static_config,
                                         DynamicConfigs per_broker, DynamicConfigs cluster_default);

  const BrokerConfig& effective() const { return *effective_; }
  const BrokerConfig& static_config() const { return *static_; }
  const DynamicConfigs& per_broker() const { return per_broker_; }
  const DynamicConfigs& cluster_default() const { return cluster_default_; }
  const std::shared_ptr<const BrokerConfig>& static_config_ptr() const { return static_; }

 private:
  BrokerConfigLayers() = default;

  std::shared_ptr<const BrokerConfig> static_;
  std::shared_ptr<const BrokerConfig> effective_;
  DynamicConfigs per_broker_;
  DynamicConfigs cluster_default_;
};

}  // namespace spool::config
