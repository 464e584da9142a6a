#include "broker/dynamic_broker_config.h"

#include <spdlog/spdlog.h>

#include "broker/entity_config_store.h"
#include "cluster/zk_paths.h"
#include "config/dynamic_keys.h"
#include "config/topic_config.h"
#include "protocol/error_code.h"

namespace spool::broker {

namespace zk_paths = cluster::zk_paths;

namespace {

std::string entity_path(bool per_broker, int32_t broker_id) {
  return per_broker ? zk_paths::config_broker(broker_id) : zk_paths::config_broker_default();
}

std::string entity_name(bool per_broker, int32_t broker_id) {
  return per_broker ? std::to_string(broker_id) : std::string(zk_paths::kDefaultBrokerEntity);
}

std::string describe_set(const config::DynamicConfigs& c) {
  std::string out;
  for (const auto& [k, v] : c) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return out.empty() ? "(none)" : out;
}

}  // namespace

DynamicBrokerConfig::DynamicBrokerConfig(const config::BrokerConfig& static_config, int32_t broker_id,
                                         std::shared_ptr<TopicDefaults> topic_defaults)
    : broker_id_(broker_id),
      static_(std::make_shared<const config::BrokerConfig>(static_config)),
      topic_defaults_(std::move(topic_defaults)),
      layers_(std::make_shared<const config::BrokerConfigLayers>(static_)) {
  std::lock_guard lk(change_mu_);
  install_locked({}, {});
}

DynamicBrokerConfig::Layers DynamicBrokerConfig::current() const {
  std::lock_guard lk(mu_);
  return layers_;
}

config::DynamicConfigs DynamicBrokerConfig::usable(const cluster::EntityConfig& stored, bool per_broker,
                                                   const std::string& path) const {
  config::DynamicConfigs out;
  for (const auto& [k, v] : stored) {
    auto one = config::validate_dynamic_broker_configs({{k, v}}, per_broker);
    if (!one) {
      spdlog::error("dynamic broker config {}: '{}' ignored: {}", path, k, one.status().message());
      continue;
    }
    out.insert(one->begin(), one->end());
  }
  return out;
}

Status DynamicBrokerConfig::load(cluster::MetadataStore& store) {
  config::DynamicConfigs layer[2];
  for (bool per_broker : {false, true}) {
    const std::string path = entity_path(per_broker, broker_id_);
    auto node = store.get(path);
    if (!node) {
      if (node.code() == cluster::StoreCode::kNoNode) continue;
      return Status::error("reading " + path + ": " + cluster::store_code_name(node.code()) + " " +
                           node.error().message);
    }
    auto decoded = cluster::decode_entity_config(path, node->data);
    if (!decoded) {  // Kafka ignores such a node too
      spdlog::error("dynamic broker config {} ignored: {}", path, decoded.status().message());
      continue;
    }
    layer[per_broker ? 1 : 0] = usable(*decoded, per_broker, path);
  }
  std::lock_guard lk(change_mu_);
  install_locked(std::move(layer[1]), std::move(layer[0]));
  auto now = current();
  spdlog::info("dynamic broker configs: default {}; broker {}: {}", describe_set(now->cluster_default()), broker_id_,
               describe_set(now->per_broker()));
  return Status::ok();
}

void DynamicBrokerConfig::apply_stored(const std::string& entity, const cluster::EntityConfig& stored) {
  const bool is_default = entity == zk_paths::kDefaultBrokerEntity;
  if (!is_default && entity != std::to_string(broker_id_)) return;  // another broker's
  auto layer = usable(stored, !is_default, entity_path(!is_default, broker_id_));
  std::lock_guard lk(change_mu_);
  auto now = current();
  if (is_default)
    install_locked(now->per_broker(), std::move(layer));
  else
    install_locked(std::move(layer), now->cluster_default());
}

Result<config::DynamicConfigs> DynamicBrokerConfig::validate_layer(const config::DynamicConfigs& configs,
                                                                   bool per_broker) const {
  // Kafka's ZkAdminManager wraps every validation failure so.
  const std::string resource = "Invalid config value for resource ConfigResource(type=BROKER, name='" +
                               (per_broker ? std::to_string(broker_id_) : "") + "'): ";
  auto normalized = config::validate_dynamic_broker_configs(configs, per_broker);
  if (!normalized) return Status::error(resource + normalized.status().message(), normalized.status().kafka_code());
  auto now = current();
  auto candidate = per_broker ? config::BrokerConfigLayers::make(static_, *normalized, now->cluster_default())
                              : config::BrokerConfigLayers::make(static_, now->per_broker(), *normalized);
  if (!candidate) return Status::error(resource + candidate.status().message(), candidate.status().kafka_code());
  return normalized;
}

Status DynamicBrokerConfig::alter(cluster::MetadataStore& store, bool per_broker, const Edit& edit,
                                  bool validate_only, bool notify) {
  const std::string path = entity_path(per_broker, broker_id_);
  for (int attempt = 1; attempt <= kMaxAlterAttempts; ++attempt) {
    auto stored = read_entity_config(store, path);
    if (!stored) return stored.status();
    config::DynamicConfigs configs = usable(stored->config, per_broker, path);
    if (Status s = edit(configs); !s) return s;
    auto normalized = validate_layer(configs, per_broker);
    if (!normalized) return normalized.status();
    if (validate_only) return Status::ok();
    const std::string notify_entity =
        notify ? zk_paths::config_entity_path(zk_paths::kEntityBrokers, entity_name(per_broker, broker_id_)) : "";
    auto written = write_entity_config(store, path, cluster::EntityConfig(normalized->begin(), normalized->end()),
                                       stored->version, notify_entity);
    if (!written) return written.status();
    if (!*written) continue;  // changed since read: edit the new set
    spdlog::info("dynamic broker config {} is now: {}", path, describe_set(*normalized));
    if (!notify) {
      std::lock_guard lk(change_mu_);
      auto now = current();
      if (per_broker)
        install_locked(std::move(*normalized), now->cluster_default());
      else
        install_locked(now->per_broker(), std::move(*normalized));
    }
    return Status::ok();
  }
  return Status::error(path + " kept changing while it was being altered (" + std::to_string(kMaxAlterAttempts) +
                           " attempts); try again",
                       protocol::to_int(protocol::ErrorCode::kUnknownServerError));
}

void DynamicBrokerConfig::install_locked(config::DynamicConfigs per_broker, config::DynamicConfigs cluster_default) {
  auto made = config::BrokerConfigLayers::make(static_, std::move(per_broker), std::move(cluster_default));
  if (!made) {
    spdlog::error("dynamic broker configs not applied: {}", made.status().message());
    return;
  }
  auto next = std::make_shared<const config::BrokerConfigLayers>(std::move(*made));
  Layers before;
  {
    std::lock_guard lk(mu_);
    before = layers_;
    layers_ = next;
  }
  const config::BrokerConfig& eff = next->effective();
  topic_defaults_->replace(config::effective_topic_config(eff, {}));
  if (applier_) applier_(*before, *next);
}

void DynamicBrokerConfig::set_applier(Applier applier) {
  std::lock_guard lk(change_mu_);
  applier_ = std::move(applier);
  if (applier_) applier_(config::BrokerConfigLayers(static_), *current());
}

}  // namespace spool::broker
