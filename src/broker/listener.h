// The roles a listener plays: which APIs are served on it. Each
// handler-table entry names the roles its API is served to
// (broker/handlers/handler_table.h); a single node's listeners are client
// ones, a cluster member's serve the other brokers too (Kafka's ZooKeeper
// mode: every listener serves every API). Plain values; thread-safe.
#pragma once

#include <cstdint>

namespace spool::broker {

enum class Listener : uint8_t { kClient = 1, kController = 2, kInterBroker = 4 };
using ListenerSet = uint8_t;

constexpr ListenerSet listeners(Listener l) { return static_cast<ListenerSet>(l); }
constexpr bool allowed_on(ListenerSet set, Listener l) { return (set & static_cast<ListenerSet>(l)) != 0; }
inline constexpr ListenerSet kClientOnly = listeners(Listener::kClient);
inline constexpr ListenerSet kInterBrokerOnly = listeners(Listener::kInterBroker);
// A cluster member's one listener: clients and the other brokers.
inline constexpr ListenerSet kClientAndInterBroker = kClientOnly | kInterBrokerOnly;

}  // namespace spool::broker
