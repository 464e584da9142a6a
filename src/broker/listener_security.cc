#include "broker/listener_security.h"

namespace spool::broker {

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
