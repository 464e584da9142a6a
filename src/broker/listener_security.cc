#include "broker/listener_security.h"

namespace spool::broker {

Result<std::shared_ptr<const client::ClientSecurity>> inter_broker_security(const config::BrokerConfig& cfg) {
  if (cfg.get("zookeeper.connect").empty()) return std::shared_ptr<const client::ClientSecurity>();  // one node
  const std::string name = cfg.inter_broker_listener_name();
  std::string protocol = "PLAINTEXT";
  for (const config::Listener& l : cfg.listeners()) {
    if (l.name == name) protocol = l.security_protocol;
  }
  if (protocol == "PLAINTEXT") return std::shared_ptr<const client::ClientSecurity>();
  client::ClientSecurity out;
  if (config::is_sasl_protocol(protocol)) {
    const std::string mechanism = cfg.get("sasl.mechanism.inter.broker.protocol");
    const std::string jaas_key = config::sasl_jaas_key(name, mechanism);
    config::PropertyList client = {{"security.protocol", "SASL_PLAINTEXT"},
                                   {"sasl.mechanism", mechanism},
                                   {"sasl.jaas.config", cfg.get(jaas_key)}};
    auto security = client::client_security(client);
    if (!security) {
      return Status::error("the inter-broker listener " + name + " is " + protocol +
                           ", so this broker logs in to the others with sasl.mechanism.inter.broker.protocol (" +
                           mechanism + ") and the username and password of '" + jaas_key +
                           "': " + security.status().message());
    }
    out = std::move(*security);
  }
  out.protocol = protocol;
  if (config::is_tls_protocol(protocol)) {
    // The listener's own stores: its truststore checks the other brokers'
    // certificates, its keystore answers a listener that wants ours.
    auto tc = security::tls_listener_config(cfg, name);
    if (!tc) return tc.status();
    auto context = security::TlsContext::create(*tc, security::TlsContext::Side::kClient);
    if (!context) {
      return Status::error("the inter-broker listener " + name + " (as this broker dials it): " +
                           context.status().message());
    }
    out.tls = std::move(*context);
  }
  return std::make_shared<const client::ClientSecurity>(std::move(out));
}

Result<std::vector<ListenerSecurity>> listener_security(const config::BrokerConfig& cfg,
                                                        const BrokerSettings& settings,
                                                        std::shared_ptr<const security::ScramCredentials> scram) {
  std::vector<ListenerSecurity> out(settings.listeners.size());
  for (size_t i = 0; i < settings.listeners.size(); ++i) {
    const ListenerSettings& l = settings.listeners[i];
    if (l.sasl()) {
      auto c = security::sasl_listener_config(cfg, l.name, scram);
      if (!c) return c.status();
      out[i].sasl = std::make_shared<const security::SaslListenerConfig>(std::move(*c));
    }
    if (!l.tls()) continue;
    auto tc = security::tls_listener_config(cfg, l.name);
    if (!tc) return tc.status();
    auto context = security::TlsContext::create(*tc, security::TlsContext::Side::kServer);
    if (!context) return Status::error("listener " + l.name + ": " + context.status().message());
    out[i].tls = std::move(*context);
    if (l.sasl()) continue;
    auto mapper = security::PrincipalMapper::parse(tc->principal_mapping_rules);
    if (!mapper) return Status::error("listener " + l.name + ": " + mapper.status().message());
    out[i].ssl_principal = std::make_shared<const security::PrincipalMapper>(std::move(*mapper));
  }
  return out;
}

}  // namespace spool::broker
