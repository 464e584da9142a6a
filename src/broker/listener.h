// The listeners a connection can arrive on. Today every connection is a
// client one; controller and inter-broker listeners come with clustering and
// security. Each handler-table entry names the listeners its API is served
// on (broker/handlers/handler_table.h). Plain values; thread-safe.
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
