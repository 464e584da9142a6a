// The NetworkClient options of a native client (producer, consumer), from
// the Kafka keys its config shares: client.id, request.timeout.ms,
// socket.connection.setup.timeout.ms, reconnect.backoff(.max).ms and the
// security settings. Pure; thread-safe.
#pragma once

#include <memory>
#include <string>

#include "client/network_client.h"

namespace spool::client {

template <class Config>
NetworkClientOptions native_network_options(const Config& c, const std::string& default_client_id) {
  NetworkClientOptions o;
  o.client_id = c.client_id.empty() ? default_client_id : c.client_id;
  o.software_name = "spool-native";
  o.request_timeout_ms = c.request_timeout_ms;
  o.connect_timeout_ms = c.connect_timeout_ms;
  o.reconnect_backoff_ms = c.reconnect_backoff_ms;
  o.reconnect_backoff_max_ms = c.reconnect_backoff_max_ms;
  o.security = std::make_shared<const ClientSecurity>(c.security);
  return o;
}

}  // namespace spool::client
