#include "config/refusal.h"

#include <algorithm>

#include "config/broker_config.h"
#include "config/config_def.h"

namespace spool::config {
namespace {

constexpr const char* kListenerPrefix = "listener.name.";

std::string protocol_of(const BrokerConfig& cfg, const std::string& listener) {
  for (const Listener& l : cfg.listeners()) {
    if (l.name == listener) return l.security_protocol;
  }
  return "PLAINTEXT";
}

// The controller's channel shares the inter-broker client
// (client/network_client.h), so a separate control-plane listener must be
// PLAINTEXT with a PLAINTEXT inter-broker listener.
void refuse_listeners(const BrokerConfig& cfg, std::vector<Refusal>& out) {
  const bool cluster = !cfg.get("zookeeper.connect").empty();
  if (!cluster) return;
  const std::string ib = cfg.inter_broker_listener_name();
  const std::string cp = cfg.control_plane_listener_name();
  for (const Listener& l : cfg.listeners()) {
    if (!cp.empty() && l.name == cp && l.name != ib &&
        (l.security_protocol != "PLAINTEXT" || protocol_of(cfg, ib) != "PLAINTEXT")) {
      out.push_back({"control.plane.listener.name",
                     "listener " + l.name + " uses security protocol " + l.security_protocol +
                         " beside an inter-broker listener on " + protocol_of(cfg, ib) +
                         ", and Spool's controller channel shares the inter-broker client: leave "
                         "control.plane.listener.name unset, or keep both listeners PLAINTEXT"});
    }
  }
}

void refuse_quorum(const BrokerConfig& cfg, std::vector<Refusal>& out) {
  for (const char* key : {"controller.quorum.voters", "controller.quorum.bootstrap.servers"}) {
    if (cfg.get_list(key).size() > 1) {
      out.push_back({key, "a KRaft quorum of several nodes is not supported yet (cluster mode is not supported yet): "
                          "the brokers would each form a separate one-node cluster"});
    }
  }
}

}  // namespace

std::vector<Refusal> refused_settings(const BrokerConfig& cfg) {
  std::vector<Refusal> out;
  for (const auto& [key, value] : cfg.explicit_values()) {
    if (const KeyDef* def = find_broker_key(key)) {
      if (def->acts == Acts::kRefused && !is_off_value(*def, value)) out.push_back({key, def->refusal});
    } else if (key.starts_with(kListenerPrefix) && !value.empty() && !is_acted_listener_key(key, cfg.listeners())) {
      out.push_back({key, "this per-listener override is not supported (Spool acts on "
                          "listener.name.<sasl listener>.sasl.enabled.mechanisms and "
                          "listener.name.<sasl listener>.<mechanism>.sasl.jaas.config and, on SSL and SASL_SSL "
                          "listeners, listener.name.<listener>.ssl.* for the ssl keys it serves, with the listener "
                          "name lower-cased)"});
    }
  }
  refuse_listeners(cfg, out);
  refuse_quorum(cfg, out);
  std::stable_sort(out.begin(), out.end(), [](const Refusal& a, const Refusal& b) { return a.key < b.key; });
  return out;
}

Status check_supported(const BrokerConfig& cfg) {
  std::vector<Refusal> refused = refused_settings(cfg);
  if (refused.empty()) return Status::ok();
  std::string msg =
      "refusing to start: these settings restrict access or promise safety, and Spool does not support them yet "
      "(ignoring them would leave the broker less secure or less safe than configured):";
  for (const Refusal& r : refused) msg += "\n  " + r.key + ": " + r.reason;
  msg += "\nRemove them, or set them to their defaults, to run without them.";
  return Status::error(std::move(msg));
}

}  // namespace spool::config
