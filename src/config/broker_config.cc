#include "config/broker_config.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <thread>

#include "config/config_def.h"
#include "config/host_counts.h"
#include "config/refusal.h"
#include "config/topic_config.h"

namespace spool::config {
namespace {

Status unknown_key(std::string_view key) {
  std::string msg = "unknown config key '" + std::string(key) + "'";
  if (const TopicKeyDef* t = find_topic_key(key); t != nullptr && t->broker_synonym != nullptr &&
                                                  find_broker_key(t->broker_synonym) != nullptr) {
    return Status::error(msg + ": it is a topic-level config; the broker-wide default is '" + t->broker_synonym + "'");
  }
  std::vector<std::string_view> names;
  for (const KeyDef& d : broker_key_defs()) names.emplace_back(d.name);
  std::string hint = closest_name(key, names);
  if (!hint.empty()) msg += " (did you mean '" + hint + "'?)";
  return Status::error(msg);
}

std::string local_hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

}  // namespace

Result<std::string> validate_broker_config(std::string_view key, std::string_view value) {
  if (const KeyDef* def = find_broker_key(key)) return parse_value(*def, value);
  if (is_accepted_prefixed_key(key)) return std::string(trim(value));
  return unknown_key(key);
}

BrokerConfig::BrokerConfig() {
  // Defaults always resolve; a failure here would be a bug in the key table.
  Status s = resolve();
  (void)s;
}

Result<BrokerConfig> BrokerConfig::load(const std::optional<std::string>& properties_file,
                                        const std::vector<std::string>& overrides,
                                        std::vector<std::string>* warnings) {
  PropertyList props;
  if (properties_file) {
    auto file = load_properties_file(*properties_file);
    if (!file) return file.status();
    props = std::move(*file);
  }
  for (const std::string& o : overrides) {
    size_t eq = o.find('=');
    std::string_view key = eq == std::string::npos ? std::string_view() : trim(std::string_view(o).substr(0, eq));
    if (eq == std::string::npos || key.empty()) {
      return Status::error("invalid override '" + o + "' (expected key=value)");
    }
    props.emplace_back(std::string(key), std::string(trim(std::string_view(o).substr(eq + 1))));
  }
  return from_properties(props, warnings);
}

Result<BrokerConfig> BrokerConfig::from_properties(const PropertyList& props, std::vector<std::string>* warnings) {
  BrokerConfig cfg;
  cfg.values_.clear();
  for (const auto& [key, value] : props) {
    auto normalized = validate_broker_config(key, value);
    if (!normalized) return normalized.status();
    cfg.values_[key] = std::move(*normalized);
  }
  Status s = cfg.resolve();
  if (!s) return s;
  if (Status supported = check_supported(cfg); !supported) return supported;
  if (warnings != nullptr) {
    for (const std::string& k : cfg.unacted_keys()) {
      warnings->push_back("config key '" + k + "' is accepted but not acted on by Spool yet");
    }
  }
  return cfg;
}

Status BrokerConfig::resolve() {
  // broker.id: Kafka allows -1 (generate) up to reserved.broker.max.id.
  int64_t id = get_long("broker.id");
  int64_t max_id = get_long("reserved.broker.max.id");
  if (id < -1) {
    return Status::error("invalid value '" + get("broker.id") +
                         "' for config 'broker.id': out of range (allowed: -1 for auto, or an int in [0, reserved.broker.max.id])");
  }
  if (id > max_id) {
    return Status::error("invalid value '" + get("broker.id") + "' for config 'broker.id': must not exceed reserved.broker.max.id (" +
                         std::to_string(max_id) + ")");
  }
  broker_id_ = id == -1 ? 0 : static_cast<int32_t>(id);

  auto protocols = parse_security_protocol_map(get("listener.security.protocol.map"));
  if (!protocols) return protocols.status();
  auto listeners = parse_listeners(get("listeners"), "listeners", *protocols, true);
  if (!listeners) return listeners.status();
  if (listeners->empty()) {
    return Status::error("invalid value for config 'listeners': at least one listener is required");
  }
  listeners_ = std::move(*listeners);
  if (is_set("advertised.listeners")) {
    auto adv = parse_listeners(get("advertised.listeners"), "advertised.listeners", *protocols, false);
    if (!adv) return adv.status();
    advertised_listeners_ = std::move(*adv);
    if (advertised_listeners_.empty()) {
      return Status::error("invalid value for config 'advertised.listeners': at least one listener is required");
    }
  } else {
    advertised_listeners_ = listeners_;
  }
  auto listener_named = [this](const std::string& name) {
    return std::any_of(listeners_.begin(), listeners_.end(), [&](const Listener& l) { return l.name == name; });
  };
  for (const Listener& l : advertised_listeners_) {
    if (!listener_named(l.name)) {
      return Status::error("invalid value for config 'advertised.listeners': listener name '" + l.name +
                           "' is not defined in listeners");
    }
  }
  auto advertised_named = [this](const std::string& name) {
    return std::any_of(advertised_listeners_.begin(), advertised_listeners_.end(),
                       [&](const Listener& l) { return l.name == name; });
  };
  if (is_set("inter.broker.listener.name")) {
    std::string name = listener_name(get("inter.broker.listener.name"));
    if (!listener_named(name)) {
      return Status::error("invalid value for config 'inter.broker.listener.name': listener '" + name +
                           "' is not defined in listeners");
    }
    if (!advertised_named(name)) {
      return Status::error("invalid value for config 'inter.broker.listener.name': listener '" + name +
                           "' is not defined in advertised.listeners (the other brokers could not reach it)");
    }
    inter_broker_listener_name_ = name;
  } else {
    std::string by_protocol = get("security.inter.broker.protocol");
    inter_broker_listener_name_ = advertised_named(by_protocol) ? by_protocol : advertised_listeners_.front().name;
  }
  if (is_set("control.plane.listener.name") && !get("control.plane.listener.name").empty()) {
    std::string name = listener_name(get("control.plane.listener.name"));
    if (!advertised_named(name)) {
      return Status::error("invalid value for config 'control.plane.listener.name': listener '" + name +
                           "' is not defined in advertised.listeners");
    }
    if (name == inter_broker_listener_name_) {
      return Status::error("control.plane.listener.name, when defined, should have a different value from the "
                           "inter broker listener name; both are " + name);
    }
    control_plane_listener_name_ = name;
  }
  for (Listener& l : advertised_listeners_) {
    if (l.host == "0.0.0.0" || l.host == "::") {
      return Status::error("advertised.listeners cannot use the nonroutable meta-address " + l.host +
                           " (listener " + l.name + "); set advertised.listeners to a routable address");
    }
    if (l.host.empty()) l.host = local_hostname();
  }
  // Kafka's rule: no connection at all per IP only makes sense with
  // addresses allowed more by an override.
  if (get_long("max.connections.per.ip") == 0 && max_connections_per_ip_overrides().empty()) {
    return Status::error("max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides is set");
  }
  if (is_set("inter.broker.listener.name") && is_set("security.inter.broker.protocol")) {
    return Status::error("inter.broker.listener.name and security.inter.broker.protocol cannot both be set");
  }

  std::string dirs = is_set("log.dirs") ? get("log.dirs") : get("log.dir");
  log_dirs_ = split_list(dirs);
  if (log_dirs_.empty()) {
    return Status::error(std::string("invalid value for config '") + (is_set("log.dirs") ? "log.dirs" : "log.dir") +
                         "': at least one log directory is required");
  }

  // Most specific unit wins, like Kafka.
  if (is_set("log.retention.ms")) {
    log_retention_ms_ = get_long("log.retention.ms");
  } else if (is_set("log.retention.minutes")) {
    log_retention_ms_ = get_long("log.retention.minutes") * 60'000;
  } else {
    log_retention_ms_ = get_long("log.retention.hours") * 3'600'000;
  }
  if (log_retention_ms_ < 0) log_retention_ms_ = -1;
  log_roll_ms_ = is_set("log.roll.ms") ? get_long("log.roll.ms") : get_long("log.roll.hours") * 3'600'000;
  log_roll_jitter_ms_ = is_set("log.roll.jitter.ms") ? get_long("log.roll.jitter.ms")
                                                       : get_long("log.roll.jitter.hours") * 3'600'000;
  log_flush_interval_ms_ = is_set("log.flush.interval.ms") ? get_long("log.flush.interval.ms")
                                                            : get_long("log.flush.scheduler.interval.ms");

  int64_t threads = get_long("reactor.threads");
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  reactor_threads_ = static_cast<int32_t>(threads);
  return Status::ok();
}

std::map<std::string, int> BrokerConfig::max_connections_per_ip_overrides() const {
  auto parsed = parse_host_counts(get("max.connections.per.ip.overrides"));
  return parsed ? std::move(*parsed) : std::map<std::string, int>{};
}

bool BrokerConfig::log_cleanup_compact() const {
  auto p = log_cleanup_policy();
  return std::find(p.begin(), p.end(), "compact") != p.end();
}

bool BrokerConfig::log_cleanup_delete() const {
  auto p = log_cleanup_policy();
  return std::find(p.begin(), p.end(), "delete") != p.end();
}

std::optional<std::string> BrokerConfig::get_optional(std::string_view key) const {
  if (auto it = values_.find(key); it != values_.end()) return it->second;
  const KeyDef* def = find_broker_key(key);
  if (def == nullptr || def->default_value == nullptr) return std::nullopt;
  return std::string(def->default_value);
}

std::string BrokerConfig::get(std::string_view key) const { return get_optional(key).value_or(""); }

bool BrokerConfig::is_set(std::string_view key) const { return values_.find(key) != values_.end(); }

int64_t BrokerConfig::get_long(std::string_view key) const { return to_int64(get(key)); }

bool BrokerConfig::get_bool(std::string_view key) const { return to_bool(get(key)); }

double BrokerConfig::get_double(std::string_view key) const { return to_double(get(key)); }

std::vector<std::string> BrokerConfig::get_list(std::string_view key) const { return split_list(get(key)); }

std::vector<std::string> BrokerConfig::unacted_keys() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : values_) {
    const KeyDef* def = find_broker_key(k);
    if (def == nullptr && is_acted_listener_key(k, listeners_)) continue;  // listener.name.<l>.<key> served
    if (def == nullptr || def->acts != Acts::kYes) out.push_back(k);
  }
  return out;
}

}  // namespace spool::config
