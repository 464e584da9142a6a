// The BROKER and BROKER_LOGGER resources of AlterConfigs and
// IncrementalAlterConfigs (alter_configs.cc decodes the requests, checks
// duplicates and types, handles topics and answers).
//
// BROKER (Kafka's ZkAdminManager.alterBrokerConfigs): the resource name is
// "" (the cluster-wide default, /config/brokers/<default>) or this broker's
// id (/config/brokers/<id>); another id is INVALID_REQUEST, as in Kafka,
// whose admin client sends a broker's resource to that broker (a write of
// another broker's node straight into ZooKeeper is still applied by that
// broker). The edit runs on the stored set; DynamicBrokerConfig::alter
// validates, persists and (one node) applies it, or (cluster) notifies every
// broker through /config/changes.
//
// BROKER_LOGGER (IncrementalAlterConfigs only; KIP-412): the name must be
// this broker's id; the operations go to broker_logger.h, at once, not
// persisted.
//
// Both run on the admin executor (store round trips); errors are a Status
// with Kafka's code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "broker/broker_context.h"
#include "broker/broker_logger.h"
#include "config/broker_config_layers.h"
#include "util/status.h"

namespace spool::broker {

Status alter_broker_resource(BrokerContext& b, const std::string& name, const DynamicBrokerConfig::Edit& edit,
                             bool validate_only);

// IncrementalAlterConfigs' APPEND/SUBTRACT base of a broker key: the set's
// value, else the key's default. INVALID_CONFIG for an unknown or non-list key.
Result<std::string> broker_list_value(const config::DynamicConfigs& set, const std::string& key, bool append);

Status alter_broker_logger(BrokerContext& b, const std::string& name, const std::vector<LoggerOp>& ops,
                           bool validate_only);

}  // namespace spool::broker
