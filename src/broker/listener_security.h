// What secures each listener of the broker, resolved from the configuration
// once at start, before anything opens (a bad key or an unreadable keystore
// stops the start with a message naming the key and the listener):
//   * SASL_PLAINTEXT and SASL_SSL: what the SASL exchange offers
//     (security/sasl_listener.h); the principal is the SASL user's;
//   * SSL and SASL_SSL: the TLS server context (security/tls_context.h:
//     keystore, truststore, client authentication, protocols, ciphers);
//   * SSL: ssl.principal.mapping.rules, which turn a client certificate's
//     subject into the principal's name (User:ANONYMOUS without one, as in
//     Kafka).
// Immutable once built and shared by the listener's connections.
#pragma once

#include <memory>
#include <vector>

#include "broker/broker_settings.h"
#include "client/client_security.h"
#include "config/broker_config.h"
#include "security/principal_mapping.h"
#include "security/sasl_listener.h"
#include "security/scram_credentials.h"
#include "security/tls_context.h"
#include "util/status.h"

namespace spool::broker {

struct ListenerSecurity {
  std::shared_ptr<const security::SaslListenerConfig> sasl;
  std::shared_ptr<const security::TlsContext> tls;
  std::shared_ptr<const security::PrincipalMapper> ssl_principal;
};

// How this broker reaches the others (null: PLAINTEXT), from its
// inter-broker listener, as Kafka reads it: on SASL_*,
// sasl.mechanism.inter.broker.protocol (PLAIN or SCRAM-SHA-*; Kafka's default
// GSSAPI is refused) and the username and password options of that
// listener's listener.name.<l>.<mechanism>.sasl.jaas.config; on SSL and
// SASL_SSL, a client TLS context from that listener's ssl.* settings (its
// truststore checks the others' certificates, and their host names unless
// ssl.endpoint.identification.algorithm is empty; its keystore serves a
// listener that requires client certificates).
Result<std::shared_ptr<const client::ClientSecurity>> inter_broker_security(const config::BrokerConfig& cfg);

// One entry per settings.listeners entry, in the same order.
Result<std::vector<ListenerSecurity>> listener_security(const config::BrokerConfig& cfg,
                                                        const BrokerSettings& settings,
                                                        std::shared_ptr<const security::ScramCredentials> scram);

}  // namespace spool::broker
