// How the security family of `spool bench` (security_plan.cc) configures a
// broker and its clients, the same Kafka keys for Spool and the Kafka 4.4
// peer: besides the PLAINTEXT listener (admin clients, the super user
// User:ANONYMOUS when an authorizer is on) a broker serves some of
//   SSL      protocol SSL, server certificate only (ssl.client.auth=none)
//   SASLSSL  protocol SASL_SSL, mechanism PLAIN, user kProducerUser
//   SASL     protocol SASL_PLAINTEXT, mechanism PLAIN, user kProducerUser
// with ssl.keystore.type=PEM / ssl.keystore.location and
// ssl.truststore.type=PEM / ssl.truststore.location from bench_certs.h, and
// optionally the ACL authorizer (authorizer.class.name=
// org.apache.kafka.metadata.authorizer.StandardAuthorizer, which Spool takes
// as an alias of its own; super.users=User:ANONYMOUS, as a Kafka whose
// inter-broker and controller listeners are PLAINTEXT needs).
// PLAIN, not SCRAM: this machine's librdkafka (2.0.2) has no
// AlterUserScramCredentials to create SCRAM users with, and Kafka 4.4
// refuses its SCRAM login (README, known differences); the SASL exchange
// happens once per connection, so the throughput figures are the
// transport's (TLS) and the authorizer's, not the mechanism's.
// Plain functions, no state; failures come back as Status.
#pragma once

#include <string>
#include <vector>

#include "bench/bench_certs.h"
#include "bench/broker_process.h"
#include "bench/rdk.h"
#include "util/status.h"

namespace spool::bench {

inline constexpr const char* kProducerUser = "producer";
inline constexpr const char* kProducerPassword = "producer-secret";
inline constexpr const char* kSslListener = "SSL";
inline constexpr const char* kSaslSslListener = "SASLSSL";
inline constexpr const char* kSaslListener = "SASL";

// Which extra listeners a broker of the family serves.
struct SecurityListeners {
  bool ssl = false;
  bool sasl_ssl = false;
  bool sasl_plaintext = false;
};
// The listeners asked for, each on a loopback port that was free a moment ago.
Result<std::vector<ExtraListener>> pick_listeners(const SecurityListeners& want);
// The listener named `name`, or null.
const ExtraListener* find_listener(const std::vector<ExtraListener>& listeners, const std::string& name);

// The broker settings (key=value) for `listeners`, plus the authorizer when asked.
std::vector<std::string> security_overrides(const BenchCerts& certs, const std::vector<ExtraListener>& listeners,
                                            bool authorizer);

// librdkafka settings of a client of a `protocol` listener as kProducerUser
// (PLAINTEXT: none): security.protocol, ssl.ca.location, sasl.*.
KafkaConfig client_security(const std::string& protocol, const BenchCerts& certs);

// Which TLS path a Spool broker took, from its log (the line the broker
// writes at its first TLS connection): "kernel TLS (the broker logged
// 'kernel TLS is on')", "user-space TLS (...)", or empty when the log has
// neither line.
std::string spool_tls_path(const std::string& broker_log_path);

}  // namespace spool::bench
