// Listener endpoints ("NAME://host:port") as written in listeners and
// advertised.listeners, and the listener.security.protocol.map that gives
// each listener name its security protocol. Pure functions; errors name the
// config key and the offending entry.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace spool::config {

struct Listener {
  std::string name;               // upper-cased listener name, e.g. PLAINTEXT
  std::string security_protocol;  // PLAINTEXT | SSL | SASL_PLAINTEXT | SASL_SSL
  std::string host;               // "" = bind to every interface (Kafka: default interface)
  uint16_t port = 0;

  // "NAME://host:port", IPv6 hosts bracketed.
  std::string to_string() const;
  bool operator==(const Listener&) const = default;
};

// A listener name as the keys name it, normalised (upper-cased, Kafka's
// ListenerName.normalised).
std::string listener_name(std::string_view s);

// The SASL mechanisms Spool serves (sasl.enabled.mechanisms may name only
// these), as Kafka spells them.
inline constexpr std::string_view kSaslMechanisms[] = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
bool is_served_sasl_mechanism(std::string_view mechanism);

// SASL_PLAINTEXT or SASL_SSL: clients on such a listener authenticate.
bool is_sasl_protocol(std::string_view security_protocol);

// SSL or SASL_SSL: connections on such a listener handshake TLS first.
bool is_tls_protocol(std::string_view security_protocol);

// The ssl.* keys a TLS listener reads, each also as a per-listener override
// (security/tls_config.h).
inline constexpr std::string_view kTlsListenerKeys[] = {
    "ssl.keystore.type",   "ssl.keystore.location",   "ssl.keystore.password",   "ssl.key.password",
    "ssl.keystore.key",    "ssl.keystore.certificate.chain", "ssl.truststore.type", "ssl.truststore.location",
    "ssl.truststore.password", "ssl.truststore.certificates", "ssl.client.auth", "ssl.enabled.protocols",
    "ssl.protocol",        "ssl.cipher.suites",       "ssl.principal.mapping.rules",
    "ssl.endpoint.identification.algorithm"};

// Per-listener override keys: "listener.name.<listener, lower-cased>." + key
// (Kafka's ListenerName.configPrefix; the prefix is case-sensitive).
std::string listener_key(std::string_view listener, std::string_view key);
// A mechanism's JAAS key on a listener:
// listener.name.<listener>.<mechanism, lower-cased>.sasl.jaas.config.
std::string sasl_jaas_key(std::string_view listener, std::string_view mechanism);
// The per-listener keys Spool acts on: on every listener
// max.connection.creation.rate; for a SASL listener its
// sasl.enabled.mechanisms and, per served mechanism,
// <mechanism>.sasl.jaas.config; for a TLS listener kTlsListenerKeys.
bool is_acted_listener_key(std::string_view key, const std::vector<Listener>& listeners);

// "NAME:PROTOCOL,..." -> name -> protocol. Names are upper-cased.
Result<std::map<std::string, std::string>> parse_security_protocol_map(std::string_view value);

// Parses a listener list. `key` is used in error messages. Names must be in
// `protocol_map` and unique; ports must be 0..65535 and (for listeners, not
// advertised ones) unique.
Result<std::vector<Listener>> parse_listeners(std::string_view value, std::string_view key,
                                              const std::map<std::string, std::string>& protocol_map,
                                              bool require_unique_ports);

}  // namespace spool::config
