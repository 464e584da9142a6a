#include "config/refusal.h"

#include <algorithm>

#include "config/broker_config.h"
#include "config/config_def.h"

namespace spool::config {
namespace {

constexpr const char* kListenerPrefix = "listener.name.";

void refuse_listeners(const BrokerConfig& cfg, std::vector<Refusal>& out) {
  for (const Listener& l : cfg.listeners()) {
    if (l.security_protocol != "PLAINTEXT") {
      out.push_back({"listeners", "listener " + l.to_string() + " uses security protocol " + l.security_protocol +
                                      ", and only PLAINTEXT is served yet (TLS and SASL are not supported yet)"});
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
    } else if (key.starts_with(kListenerPrefix) && !value.empty()) {
      out.push_back({key, "per-listener overrides are not supported yet (only PLAINTEXT listeners are served; "
                          "TLS and SASL are not supported yet)"});
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
