// run_broker: wires a whole single-node broker (log manager, topic registry,
// replica manager, dispatcher, network server), serves until SIGTERM or
// SIGINT, then shuts down in order: stop accepting and close connections,
// flush and checkpoint every log, write the clean-shutdown marker.
// Returns the process exit code (0 after a clean shutdown, 1 if the broker
// could not start; the reason is logged).
#pragma once

namespace spool::config {
class BrokerConfig;
}

namespace spool::broker {

int run_broker(const config::BrokerConfig& cfg);

}  // namespace spool::broker
