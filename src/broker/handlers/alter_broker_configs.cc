#include "broker/handlers/alter_broker_configs.h"

#include <charconv>

#include "config/config_def.h"
#include "protocol/error_code.h"

namespace spool::broker {

namespace {

using protocol::ErrorCode;

Status kafka_error(ErrorCode c, std::string m) { return Status::error(std::move(m), protocol::to_int(c)); }

// Kafka's getBrokerId: nullopt for the default (""), else this broker's id.
Result<std::optional<int32_t>> resource_broker_id(const BrokerContext& b, const std::string& name) {
  if (name.empty()) return std::optional<int32_t>();
  int32_t id = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
  if (ec != std::errc() || end != name.data() + name.size())
    return kafka_error(ErrorCode::kInvalidRequest, "Broker id must be an integer, but it is: " + name);
  if (id != b.settings.broker_id)
    return kafka_error(ErrorCode::kInvalidRequest, "Unexpected broker id, expected " +
                                                       std::to_string(b.settings.broker_id) + ", but received " + name);
  return std::optional<int32_t>(id);
}

}  // namespace

Status alter_broker_resource(BrokerContext& b, const std::string& name, const DynamicBrokerConfig::Edit& edit,
                             bool validate_only) {
  auto id = resource_broker_id(b, name);
  if (!id) return id.status();
  if (b.dynamic == nullptr || b.config_store == nullptr)
    return kafka_error(ErrorCode::kInvalidRequest, "dynamic broker configs are not available on this broker");
  return b.dynamic->alter(*b.config_store, id->has_value(), edit, validate_only, /*notify=*/b.cluster != nullptr);
}

Result<std::string> broker_list_value(const config::DynamicConfigs& set, const std::string& key, bool append) {
  const config::KeyDef* def = config::find_broker_key(key);
  if (def == nullptr) return kafka_error(ErrorCode::kInvalidConfig, "Unknown broker config name: " + key);
  if (def->type != config::ConfigType::kList)
    return kafka_error(ErrorCode::kInvalidConfig, std::string("Config value ") + (append ? "append" : "subtract") +
                                                      " is not allowed for config key: " + key);
  if (auto it = set.find(key); it != set.end()) return it->second;
  return std::string(def->default_value != nullptr ? def->default_value : "");
}

Status alter_broker_logger(BrokerContext& b, const std::string& name, const std::vector<LoggerOp>& ops,
                           bool validate_only) {
  if (name.empty()) return kafka_error(ErrorCode::kInvalidRequest, "Node id must be an integer, but it is: ");
  auto id = resource_broker_id(b, name);
  if (!id) return id.status();
  if (Status s = check_logger_ops(ops); !s) return s;
  if (!validate_only) apply_logger_ops(ops);
  return Status::ok();
}

}  // namespace spool::broker
