// admin.listener (Spool's key): where the admin HTTP API listens.
//   "http://HOST:PORT"  HOST a name or IPv4 address ("" or 0.0.0.0 = all
//                       interfaces), PORT 0..65535 (0 = ephemeral)
//   ""                  no admin listener
// "https://..." is refused (fail closed): TLS on the admin listener is not
// supported yet, and a key meant to protect it must not leave it open.
// Default http://127.0.0.1:9644. The default is special in one way: when its
// port is taken (a second broker on the host), the broker warns and runs
// without the admin listener; a value set explicitly that cannot bind stops
// the start, as a Kafka listener does.
//
// AdminListener runs the HttpServer with an AdminApi behind it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "broker/admin_api/admin_api.h"
#include "http/http_server.h"
#include "util/status.h"

namespace spool::broker {

inline constexpr std::string_view kDefaultAdminListener = "http://127.0.0.1:9644";

// nullopt: disabled. An error names what is wrong with the value.
Result<std::optional<http::HttpServerOptions>> parse_admin_listener(std::string_view value);


class AdminListener {
 public:
  // Starts the listener `value` names (explicit: set in the config, not the
  // default). Null when disabled, or when the default's port is taken.
  static Result<std::unique_ptr<AdminListener>> start(std::string_view value, bool explicit_value,
                                                      AdminAuthMode auth, BrokerContext& ctx,
                                                      const AdminStatus& status,
                                                      ListenerConnections connections);
  uint16_t port() const { return server_->port(); }
  void stop() { server_->stop(); }

 private:
  AdminListener() = default;
  std::unique_ptr<AdminApi> api_;
  std::unique_ptr<http::HttpServer> server_;
};

}  // namespace spool::broker
