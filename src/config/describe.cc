#include "config/describe.h"

#include <algorithm>

#include "config/dynamic_keys.h"
#include "config/topic_config.h"

namespace spool::config {
namespace {

// Broker keys a topic key falls back to, most specific first (Kafka's
// synonym order); keys not listed here use TopicKeyDef::broker_synonym only.
std::vector<std::string> broker_synonyms(const TopicKeyDef& def) {
  std::string_view name = def.def.name;
  if (name == "retention.ms") return {"log.retention.ms", "log.retention.minutes", "log.retention.hours"};
  if (name == "segment.ms") return {"log.roll.ms", "log.roll.hours"};
  if (name == "segment.jitter.ms") return {"log.roll.jitter.ms", "log.roll.jitter.hours"};
  if (name == "flush.ms") return {"log.flush.interval.ms", "log.flush.scheduler.interval.ms"};
  if (def.broker_synonym == nullptr) return {};
  return {def.broker_synonym};
}

std::optional<std::string> shown(bool sensitive, std::optional<std::string> v) {
  return sensitive ? std::nullopt : std::move(v);
}

// One layer of the broker's configuration: a dynamic one, or the static one.
struct Layer {
  const DynamicConfigs* dynamic = nullptr;
  const BrokerConfig* static_config = nullptr;
  ConfigSource source;
  std::optional<std::string> find(const std::string& key) const {
    if (dynamic != nullptr) {
      auto it = dynamic->find(key);
      return it == dynamic->end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    return static_config->is_set(key) ? static_config->get_optional(key) : std::nullopt;
  }
};

// Kafka's precedence, most specific first (the key defaults are not a layer: callers add them).
std::vector<Layer> layers(const BrokerConfigLayers& broker) {
  return {{&broker.per_broker(), nullptr, ConfigSource::kDynamicBroker},
          {&broker.cluster_default(), nullptr, ConfigSource::kDynamicDefaultBroker},
          {nullptr, &broker.static_config(), ConfigSource::kStaticBroker}};
}

// Kafka's configSynonyms for broker key `name`: every synonym of it set in
// each layer, layer by layer, then the defaults; the entries before the
// first one named `name` are dropped (a more specific synonym describes
// itself). Without per_broker only the dynamic default layer counts.
std::vector<ConfigSynonym> key_synonyms(const BrokerConfigLayers& broker, const std::string& name, bool sensitive,
                                        bool per_broker) {
  std::vector<ConfigSynonym> out;
  const std::vector<std::string> names = broker_key_synonyms(name);
  for (const Layer& layer : layers(broker)) {
    if (!per_broker && layer.source != ConfigSource::kDynamicDefaultBroker) continue;
    for (const std::string& n : names) {
      if (auto v = layer.find(n)) out.push_back({n, shown(sensitive, *v), layer.source});
    }
  }
  if (per_broker) {
    for (const std::string& n : names) {
      const KeyDef* d = find_broker_key(n);
      if (d != nullptr && d->default_value != nullptr)
        out.push_back({n, shown(sensitive, std::string(d->default_value)), ConfigSource::kDefault});
    }
  }
  auto own = std::find_if(out.begin(), out.end(), [&](const ConfigSynonym& s) { return s.name == name; });
  out.erase(out.begin(), own);
  return out;
}

}  // namespace

int8_t kafka_type_id(std::optional<ConfigType> type) {
  if (!type) return 0;
  switch (*type) {
    case ConfigType::kBoolean: return 1;
    case ConfigType::kString: return 2;
    case ConfigType::kInt: return 3;
    case ConfigType::kShort: return 4;
    case ConfigType::kLong: return 5;
    case ConfigType::kDouble: return 6;
    case ConfigType::kList: return 7;
    case ConfigType::kClass: return 8;
    case ConfigType::kPassword: return 9;
  }
  return 0;
}

std::vector<ConfigEntry> describe_topic_config(const BrokerConfigLayers& broker,
                                               const std::map<std::string, std::string>& overrides) {
  std::vector<ConfigEntry> out;
  auto effective = effective_topic_config(broker.effective(), overrides);
  for (const TopicKeyDef& d : topic_key_defs()) {
    ConfigEntry e;
    e.name = d.def.name;
    e.type = d.def.type;
    e.is_sensitive = d.def.type == ConfigType::kPassword;
    e.value = shown(e.is_sensitive, effective[e.name]);
    if (overrides.count(e.name)) e.synonyms.push_back({e.name, e.value, ConfigSource::kDynamicTopic});
    std::vector<std::string> syns = broker_synonyms(d);
    for (const Layer& layer : layers(broker)) {
      for (const std::string& s : syns) {
        if (auto v = layer.find(s)) e.synonyms.push_back({s, shown(e.is_sensitive, *v), layer.source});
      }
    }
    // The default comes from the least specific broker key (e.g. log.retention.hours).
    if (!syns.empty()) {
      const std::string& last = syns.back();
      const KeyDef* bd = find_broker_key(last);
      if (bd != nullptr && bd->default_value != nullptr && !broker.static_config().is_set(last)) {
        e.synonyms.push_back({last, shown(e.is_sensitive, std::string(bd->default_value)), ConfigSource::kDefault});
      }
    } else if (d.def.default_value != nullptr) {
      e.synonyms.push_back({e.name, shown(e.is_sensitive, std::string(d.def.default_value)), ConfigSource::kDefault});
    }
    e.source = e.synonyms.empty() ? ConfigSource::kDefault : e.synonyms.front().source;
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<ConfigEntry> describe_topic_config(const BrokerConfig& broker,
                                               const std::map<std::string, std::string>& overrides) {
  return describe_topic_config(BrokerConfigLayers(std::make_shared<const BrokerConfig>(broker)), overrides);
}

std::vector<ConfigEntry> describe_broker_config(const BrokerConfigLayers& broker) {
  std::vector<ConfigEntry> out;
  const BrokerConfig& effective = broker.effective();
  for (const KeyDef& d : broker_key_defs()) {
    ConfigEntry e;
    e.name = d.name;
    e.type = d.type;
    e.is_sensitive = d.type == ConfigType::kPassword;
    e.read_only = !accepts_dynamic_update(d.name);
    e.value = shown(e.is_sensitive, effective.get_optional(d.name));
    e.synonyms = key_synonyms(broker, d.name, e.is_sensitive, /*per_broker=*/true);
    e.source = e.synonyms.empty() ? ConfigSource::kDefault : e.synonyms.front().source;
    out.push_back(std::move(e));
  }
  for (const auto& [k, v] : broker.static_config().explicit_values()) {
    if (find_broker_key(k) != nullptr) continue;
    ConfigEntry e;
    e.name = k;
    // Prefixed keys (listener.name.x.ssl.keystore.password, ...) may hold secrets: never echo them.
    e.is_sensitive = true;
    e.read_only = true;
    e.source = ConfigSource::kStaticBroker;
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<ConfigEntry> describe_broker_config(const BrokerConfig& broker) {
  return describe_broker_config(BrokerConfigLayers(std::make_shared<const BrokerConfig>(broker)));
}

std::vector<ConfigEntry> describe_broker_defaults(const BrokerConfigLayers& broker) {
  std::vector<ConfigEntry> out;
  for (const auto& [k, v] : broker.cluster_default()) {
    const KeyDef* d = find_broker_key(k);
    ConfigEntry e;
    e.name = k;
    if (d != nullptr) e.type = d->type;
    e.is_sensitive = d == nullptr || d->type == ConfigType::kPassword;
    e.read_only = !accepts_dynamic_update(k);
    e.value = shown(e.is_sensitive, v);
    e.source = ConfigSource::kDynamicDefaultBroker;
    e.synonyms = key_synonyms(broker, k, e.is_sensitive, /*per_broker=*/false);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace spool::config
