// What a TLS listener (SSL or SASL_SSL) is configured with, resolved once at
// start from Kafka's ssl.* keys: each key is read as
// listener.name.<listener, lower-cased>.<key> when that is set, else as the
// broker-wide key (Kafka's per-listener override rule).
//
// Served: ssl.keystore.type PEM (ssl.keystore.location holding the private
// key and the certificate chain, or the inline ssl.keystore.key and
// ssl.keystore.certificate.chain; ssl.key.password for an encrypted key) and
// PKCS12 (ssl.keystore.password); ssl.truststore.type PEM
// (ssl.truststore.location or the inline ssl.truststore.certificates) and
// PKCS12 (ssl.truststore.password); ssl.client.auth; ssl.enabled.protocols
// (TLSv1.2 and TLSv1.3); ssl.cipher.suites (IANA names, as Java spells them);
// ssl.principal.mapping.rules; ssl.endpoint.identification.algorithm (for the
// client side: "https" checks the broker's host name, "" does not).
//
// Refused with an error naming the key: JKS stores (Java's own format, which
// OpenSSL cannot read: convert them to PKCS12 with keytool), TLSv1 and
// TLSv1.1 (insecure; Kafka 4 leaves them off too), client authentication
// without a truststore. Pure: reads files only in tls_context.cc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/broker_config.h"
#include "util/status.h"

namespace spool::security {

enum class TlsClientAuth { kNone, kRequested, kRequired };

struct TlsStore {
  std::string type;       // "PEM" or "PKCS12"
  std::string location;   // a file, or "" when the PEM text is inline
  std::string inline_pem; // ssl.keystore.certificate.chain / ssl.truststore.certificates
  std::string inline_key; // ssl.keystore.key (keystores only)
  std::string password;   // ssl.keystore.password / ssl.truststore.password
  bool set() const { return !location.empty() || !inline_pem.empty(); }
};

struct TlsConfig {
  std::string listener;       // upper-cased listener name ("" for a client)
  TlsStore keystore;          // the broker's own certificate and key
  std::string key_password;   // ssl.key.password
  TlsStore truststore;        // the CAs that sign the peers' certificates
  TlsClientAuth client_auth = TlsClientAuth::kNone;
  std::vector<std::string> protocols{"TLSv1.2", "TLSv1.3"};  // ssl.enabled.protocols
  std::vector<std::string> cipher_suites;                    // empty = OpenSSL's defaults
  std::string principal_mapping_rules = "DEFAULT";
  bool verify_hostname = true;  // ssl.endpoint.identification.algorithm=https
};

// The listener's TLS settings. Errors name the key (with its listener
// prefix when the override was the one read) and never echo a password.
Result<TlsConfig> tls_listener_config(const config::BrokerConfig& cfg, std::string_view listener);

}  // namespace spool::security
