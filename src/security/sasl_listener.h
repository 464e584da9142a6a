// What a SASL listener (SASL_PLAINTEXT) offers, resolved from the broker's
// configuration once at start:
//   * its mechanisms: listener.name.<l>.sasl.enabled.mechanisms, else
//     sasl.enabled.mechanisms (Kafka's default GSSAPI, which Spool does not
//     serve: the start fails naming the key);
//   * PLAIN's users: the user_<name>="<password>" options of the
//     PlainLoginModule in listener.name.<l>.plain.sasl.jaas.config;
//   * SCRAM-SHA-256/512: the broker's ScramCredentials (from the metadata
//     store's /config/users); a listener.name.<l>.scram-sha-*.sasl.jaas.config,
//     which Kafka requires, is optional here but must name the ScramLoginModule;
//   * sasl.server.max.receive.size (the frame bound before authentication)
//     connections.max.reauth.ms (KIP-368 session lifetime) and
//     connection.failed.authentication.delay.ms (how long a failed login
//     waits for its answer and close, as Kafka slows password guessing).
// Immutable once built and shared by the listener's connections;
// thread-safe. Errors name the key and never echo a password.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/broker_config.h"
#include "security/plain_server.h"
#include "security/sasl_server.h"
#include "security/scram_credentials.h"
#include "util/status.h"

namespace spool::security {

struct SaslListenerConfig {
  std::string listener;                           // upper-cased listener name
  std::vector<std::string> mechanisms;            // enabled, in configured order
  std::shared_ptr<const PlainUsers> plain_users;  // set when PLAIN is enabled
  std::shared_ptr<const ScramCredentials> scram;  // set when a SCRAM mechanism is enabled
  int32_t max_receive_bytes = 524288;             // sasl.server.max.receive.size
  int64_t max_reauth_ms = 0;                      // connections.max.reauth.ms; 0 = sessions never expire
  int32_t failed_delay_ms = 100;                  // connection.failed.authentication.delay.ms

  bool enabled(std::string_view mechanism) const;
  // A new exchange of `mechanism`; nullptr when it is not enabled here.
  std::unique_ptr<SaslServer> new_server(std::string_view mechanism) const;
};

// `scram`: the broker's credentials (null: the SCRAM mechanisms get an
// empty set, so nobody authenticates with them).
Result<SaslListenerConfig> sasl_listener_config(const config::BrokerConfig& cfg, std::string_view listener,
                                                std::shared_ptr<const ScramCredentials> scram = nullptr);

// ok, or the first SASL listener's error: what `spool broker` checks before
// it starts anything (a config error, exit 2).
Status check_sasl_listeners(const config::BrokerConfig& cfg);

}  // namespace spool::security
