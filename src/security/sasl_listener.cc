#include "security/sasl_listener.h"

#include <algorithm>

#include "config/listener.h"
#include "security/jaas.h"
#include "security/scram_server.h"

namespace spool::security {
namespace {

constexpr std::string_view kPlainModule = "org.apache.kafka.common.security.plain.PlainLoginModule";
constexpr std::string_view kScramModule = "org.apache.kafka.common.security.scram.ScramLoginModule";
constexpr std::string_view kUserPrefix = "user_";

std::string served_list() {
  std::string out;
  for (std::string_view m : config::kSaslMechanisms) out += (out.empty() ? "" : ", ") + std::string(m);
  return out;
}

Result<std::shared_ptr<const PlainUsers>> plain_users(const config::BrokerConfig& cfg, std::string_view listener) {
  const std::string key = config::sasl_jaas_key(listener, "PLAIN");
  const std::string text = cfg.get(key);
  if (text.empty()) {
    return Status::error("listener " + std::string(listener) + " enables SASL mechanism PLAIN but '" + key +
                         "' is not set (its PlainLoginModule lists the users: user_<name>=\"<password>\")");
  }
  auto module = parse_jaas_config(text);
  if (!module) return Status::error("invalid value for config '" + key + "': " + module.status().message());
  if (module->class_name != kPlainModule) {
    return Status::error("invalid value for config '" + key + "': login module " + module->class_name +
                         " is not " + std::string(kPlainModule));
  }
  auto users = std::make_shared<PlainUsers>();
  for (const auto& [name, value] : module->options) {
    if (name.starts_with(kUserPrefix) && name.size() > kUserPrefix.size()) {
      users->emplace(name.substr(kUserPrefix.size()), value);
    }
  }
  if (users->empty()) {
    return Status::error("invalid value for config '" + key + "': the PlainLoginModule names no user "
                         "(user_<name>=\"<password>\"), so nobody could connect to listener " + std::string(listener));
  }
  return std::shared_ptr<const PlainUsers>(std::move(users));
}

// A SCRAM mechanism's JAAS entry is optional (Spool's credentials live in
// the metadata store); when given it must be the ScramLoginModule.
Status check_scram_jaas(const config::BrokerConfig& cfg, std::string_view listener, std::string_view mechanism) {
  const std::string key = config::sasl_jaas_key(listener, mechanism);
  const std::string text = cfg.get(key);
  if (text.empty()) return Status::ok();
  auto module = parse_jaas_config(text);
  if (!module) return Status::error("invalid value for config '" + key + "': " + module.status().message());
  if (module->class_name != kScramModule) {
    return Status::error("invalid value for config '" + key + "': login module " + module->class_name + " is not " +
                         std::string(kScramModule));
  }
  return Status::ok();
}

}  // namespace

bool SaslListenerConfig::enabled(std::string_view mechanism) const {
  return std::find(mechanisms.begin(), mechanisms.end(), mechanism) != mechanisms.end();
}

std::unique_ptr<SaslServer> SaslListenerConfig::new_server(std::string_view mechanism) const {
  if (!enabled(mechanism)) return nullptr;
  if (mechanism == "PLAIN") return std::make_unique<PlainServer>(plain_users);
  if (auto m = scram_mechanism_named(mechanism)) {
    return std::make_unique<ScramServer>(*m, [creds = scram](ScramMechanism mech, const std::string& user) {
      return creds ? creds->find(mech, user) : std::nullopt;
    });
  }
  return nullptr;
}

Result<SaslListenerConfig> sasl_listener_config(const config::BrokerConfig& cfg, std::string_view listener,
                                                std::shared_ptr<const ScramCredentials> scram) {
  SaslListenerConfig out;
  out.listener = std::string(listener);
  std::string key = config::listener_key(listener, "sasl.enabled.mechanisms");
  if (!cfg.is_set(key)) key = "sasl.enabled.mechanisms";
  out.mechanisms = cfg.get_list(key);
  if (out.mechanisms.empty()) {
    return Status::error("listener " + out.listener + " is a SASL listener but '" + key +
                         "' enables no mechanism (Spool serves " + served_list() + ")");
  }
  for (std::string& m : out.mechanisms) {
    m = config::listener_name(m);  // mechanism names are upper-case
    if (!config::is_served_sasl_mechanism(m)) {
      return Status::error("invalid value for config '" + key + "': SASL mechanism " + m +
                           " is not supported by Spool (it serves " + served_list() + ")" +
                           (key == "sasl.enabled.mechanisms" && !cfg.is_set(key)
                                ? "; Kafka's default is GSSAPI, so a SASL listener needs sasl.enabled.mechanisms set"
                                : ""));
    }
  }
  for (const std::string& m : out.mechanisms) {
    if (!scram_mechanism_named(m)) continue;
    if (Status s = check_scram_jaas(cfg, listener, m); !s) return s;
    out.scram = scram ? scram : std::make_shared<const ScramCredentials>();
  }
  if (out.enabled("PLAIN")) {
    auto users = plain_users(cfg, listener);
    if (!users) return users.status();
    out.plain_users = std::move(*users);
  }
  out.max_receive_bytes = static_cast<int32_t>(cfg.get_long("sasl.server.max.receive.size"));
  out.max_reauth_ms = cfg.get_long("connections.max.reauth.ms");
  out.failed_delay_ms = static_cast<int32_t>(cfg.get_long("connection.failed.authentication.delay.ms"));
  return out;
}

Status check_sasl_listeners(const config::BrokerConfig& cfg) {
  for (const config::Listener& l : cfg.listeners()) {
    if (!config::is_sasl_protocol(l.security_protocol)) continue;
    if (auto c = sasl_listener_config(cfg, l.name); !c) return c.status();
  }
  return Status::ok();
}

}  // namespace spool::security
