#include "config/describe.h"

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

std::vector<ConfigEntry> describe_topic_config(const BrokerConfig& broker,
                                               const std::map<std::string, std::string>& overrides) {
  std::vector<ConfigEntry> out;
  auto effective = effective_topic_config(broker, overrides);
  for (const TopicKeyDef& d : topic_key_defs()) {
    ConfigEntry e;
    e.name = d.def.name;
    e.type = d.def.type;
    e.is_sensitive = d.def.type == ConfigType::kPassword;
    e.value = shown(e.is_sensitive, effective[e.name]);
    auto ov = overrides.find(e.name);
    if (ov != overrides.end()) {
      e.source = ConfigSource::kDynamicTopic;
      e.synonyms.push_back({e.name, shown(e.is_sensitive, e.value), ConfigSource::kDynamicTopic});
    }
    bool broker_set = false;
    std::vector<std::string> syns = broker_synonyms(d);
    for (const std::string& s : syns) {
      if (!broker.is_set(s)) continue;
      if (!broker_set && e.source != ConfigSource::kDynamicTopic) e.source = ConfigSource::kStaticBroker;
      broker_set = true;
      e.synonyms.push_back({s, shown(e.is_sensitive, broker.get_optional(s)), ConfigSource::kStaticBroker});
    }
    // The default comes from the least specific broker key (e.g. log.retention.hours).
    if (!syns.empty()) {
      const std::string& last = syns.back();
      const KeyDef* bd = find_broker_key(last);
      if (bd != nullptr && bd->default_value != nullptr && !broker.is_set(last)) {
        e.synonyms.push_back({last, shown(e.is_sensitive, std::string(bd->default_value)), ConfigSource::kDefault});
      }
    } else if (d.def.default_value != nullptr) {
      e.synonyms.push_back({e.name, shown(e.is_sensitive, std::string(d.def.default_value)), ConfigSource::kDefault});
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<ConfigEntry> describe_broker_config(const BrokerConfig& broker) {
  std::vector<ConfigEntry> out;
  for (const KeyDef& d : broker_key_defs()) {
    ConfigEntry e;
    e.name = d.name;
    e.type = d.type;
    e.is_sensitive = d.type == ConfigType::kPassword;
    e.read_only = true;
    e.value = shown(e.is_sensitive, broker.get_optional(d.name));
    e.source = broker.is_set(d.name) ? ConfigSource::kStaticBroker : ConfigSource::kDefault;
    if (broker.is_set(d.name)) e.synonyms.push_back({e.name, e.value, ConfigSource::kStaticBroker});
    if (d.default_value != nullptr) {
      e.synonyms.push_back({e.name, shown(e.is_sensitive, std::string(d.default_value)), ConfigSource::kDefault});
    }
    out.push_back(std::move(e));
  }
  for (const auto& [k, v] : broker.explicit_values()) {
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

}  // namespace spool::config
