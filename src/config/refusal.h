// Fail closed: the broker settings Spool refuses to start with.
//
// A setting that restricts access or promises safety, and that Spool does not
// act on yet, must not be ignored: the operator would believe the broker is
// locked down (or replicated) while anyone can read, write and delete. These
// are refused:
//   * every kRefused key of the broker key table (broker_keys.cc: TLS, SASL,
//     ACLs, quotas, ZooKeeper, tiered storage...) set to anything but its off
//     value (config_def.h, is_off_value);
//   * per-listener overrides (`listener.name.<listener>.<key>`) with a value,
//     except the SASL ones Spool acts on (listener.h, is_acted_listener_key);
//   * a listener on SSL or SASL_SSL (TLS is not served yet) and, in cluster
//     mode, an inter-broker or control-plane listener that is not PLAINTEXT
//     (the brokers' own connections cannot authenticate yet);
//   * a KRaft quorum of more than one voter (controller.quorum.voters or
//     controller.quorum.bootstrap.servers with several entries): the brokers
//     would each form a separate one-node cluster.
// Secret values are never echoed: a refusal names the key and the reason.
// Pure functions of a resolved BrokerConfig; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace spool::config {

class BrokerConfig;

struct Refusal {
  std::string key;     // the key as set, e.g. "listener.name.sasl_plaintext.plain.sasl.jaas.config"
  std::string reason;  // e.g. "SASL authentication is not supported yet"
};

// Every refused setting of `cfg`, sorted by key (empty = the broker may start).
std::vector<Refusal> refused_settings(const BrokerConfig& cfg);

// ok, or one error naming every refused key with its reason.
Status check_supported(const BrokerConfig& cfg);

}  // namespace spool::config
