#include "config/broker_config_layers.h"

#include <algorithm>

#include "config/dynamic_keys.h"
#include "config/properties.h"

namespace spool::config {
namespace {

// Kafka's overrideProps: `key` replaces every synonym of itself.
void override_props(PropertyList& props, const DynamicConfigs& layer) {
  for (const auto& [key, value] : layer) {
    const auto synonyms = broker_key_synonyms(key);
    std::erase_if(props, [&](const auto& kv) {
      return std::find(synonyms.begin(), synonyms.end(), kv.first) != synonyms.end();
    });
    props.emplace_back(key, value);
  }
}

}  // namespace

BrokerConfigLayers::BrokerConfigLayers(std::shared_ptr<const BrokerConfig> static_config)
    : static_(static_config), effective_(std::move(static_config)) {}

Result<BrokerConfigLayers> BrokerConfigLayers::make(std::shared_ptr<const BrokerConfig> static_config,
                                                    DynamicConfigs per_broker, DynamicConfigs cluster_default) {
  BrokerConfigLayers out;
  out.static_ = std::move(static_config);
  out.per_broker_ = std::move(per_broker);
  out.cluster_default_ = std::move(cluster_default);
  if (out.per_broker_.empty() && out.cluster_default_.empty()) {
    out.effective_ = out.static_;
    return out;
  }
  PropertyList props(out.static_->explicit_values().begin(), out.static_->explicit_values().end());
  override_props(props, out.cluster_default_);
  override_props(props, out.per_broker_);
  auto resolved = BrokerConfig::from_properties(props, nullptr);
  if (!resolved) return Status::error(resolved.status().message(), 40);
  out.effective_ = std::make_shared<const BrokerConfig>(std::move(*resolved));
  return out;
}

}  // namespace spool::config
