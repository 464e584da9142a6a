// ClientSecurity: how Spool's own clients (the `spool` CLI through
// --command-config FILE) reach a secured listener, from the Kafka client
// properties a kafka-*.sh --command-config file holds:
//   security.protocol   PLAINTEXT | SSL | SASL_PLAINTEXT | SASL_SSL
//   sasl.mechanism      PLAIN | SCRAM-SHA-256 | SCRAM-SHA-512 (Kafka's
//                       default GSSAPI is refused: Spool cannot speak it)
//   sasl.jaas.config    a PlainLoginModule or ScramLoginModule with
//                       username="..." password="..."
//   ssl.truststore.*, ssl.keystore.*, ssl.key.password, ssl.enabled.protocols,
//   ssl.cipher.suites, ssl.endpoint.identification.algorithm (default https:
//                       the broker's certificate must name the host dialled)
// Other client keys (client.id, request.timeout.ms, ...) are ignored, as
// they tune rather than secure; an ssl.* or sasl.* key not listed is an
// error, since ignoring it could connect less securely than asked.
//
// The TLS context is built (its files read) at load. Immutable afterwards;
// shareable across threads. Errors name the key, never a password.
#pragma once

#include <memory>
#include <string>

#include "config/properties.h"
#include "security/tls_context.h"
#include "util/status.h"

namespace spool::client {

struct ClientSecurity {
  std::string protocol = "PLAINTEXT";
  std::string sasl_mechanism;  // set when protocol is SASL_*
  std::string user;
  std::string password;
  std::shared_ptr<const security::TlsContext> tls;  // set when protocol is SSL or SASL_SSL

  bool sasl() const { return !sasl_mechanism.empty(); }
};

Result<ClientSecurity> client_security(const config::PropertyList& properties);
// Reads and parses a --command-config file.
Result<ClientSecurity> load_client_security(const std::string& path);

}  // namespace spool::client
