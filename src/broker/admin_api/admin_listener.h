// admin.listener (Spool's key): where the admin HTTP API listens.
//   "http://HOST:PORT"   HOST a name or IPv4 address ("" or 0.0.0.0 = all
//                        interfaces), PORT 0..65535 (0 = ephemeral)
//   "https://HOST:PORT"  the same over TLS, with the broker-wide ssl.* keys
//                        (security/tls_config.h: ssl.keystore.*, and with
//                        ssl.client.auth=required|requested a client
//                        certificate signed by ssl.truststore.*), the same
//                        OpenSSL settings as the Kafka TLS listeners. A
//                        store that cannot be read stops the start (exit 2).
//   ""                   no admin listener
// Default http://127.0.0.1:9644. The default is special in one way: when its
// port is taken (a second broker on the host), the broker warns and runs
// without the admin listener; a value set explicitly that cannot bind stops
// the start, as a Kafka listener does.
//
// AdminListener starts early, before ZooKeeper and log recovery, serving the
// probes only: /v1/health 200 ("live"), /v1/ready 503 with the start phase
// set_phase() names ("loading logs", ...), any other path 503. attach() then
// puts the whole AdminApi behind it; detach() (at shutdown, before the API's
// parts go) returns to the probes, ready answering "shutting down", until the
// listener stops when it is destroyed. Threading: set_phase, attach and
// detach from any thread but the listener's; detach waits for a request the
// API is answering.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "broker/admin_api/admin_api.h"
#include "config/broker_config.h"
#include "http/http_server.h"
#include "util/status.h"

namespace spool::broker {

inline constexpr std::string_view kDefaultAdminListener = "http://127.0.0.1:9644";

struct AdminAddress {
  http::HttpServerOptions options;  // host and port (no TLS context yet)
  bool https = false;
};

// nullopt: disabled. An error names what is wrong with the value.
Result<std::optional<AdminAddress>> parse_admin_listener(std::string_view value);

// admin.listener's server options, with the TLS context (stores read) for
// https://; nullopt when disabled. What `spool broker` checks before it
// starts anything (a config error, exit 2).
Result<std::optional<http::HttpServerOptions>> admin_listener_options(const config::BrokerConfig& cfg);

class AdminListener {
 public:
  // Starts the listener cfg's admin.listener names, serving the probes.
  // Null when disabled, or when the default's port is taken.
  static Result<std::unique_ptr<AdminListener>> start(const config::BrokerConfig& cfg);
  ~AdminListener();

  uint16_t port() const { return server_->port(); }
  // The start phase /v1/ready names while no API is attached.
  void set_phase(std::string phase);
  void attach(std::unique_ptr<AdminApi> api);
  void detach();

 private:
  AdminListener() = default;
  http::HttpResponse answer(const http::HttpRequest& req);

  std::mutex mu_;
  std::unique_ptr<AdminApi> api_;      // guarded by mu_
  std::string phase_ = "starting";     // guarded by mu_
  int32_t broker_id_ = -1;
  std::unique_ptr<http::HttpServer> server_;
};

// Detaches the API when it goes out of scope: declared after what the API
// reads (the broker context, the Kafka server), so it goes first.
class AdminAttachment {
 public:
  explicit AdminAttachment(AdminListener* listener) : listener_(listener) {}
  ~AdminAttachment() {
    if (listener_ != nullptr) listener_->detach();
  }
  AdminAttachment(const AdminAttachment&) = delete;
  AdminAttachment& operator=(const AdminAttachment&) = delete;

 private:
  AdminListener* listener_;
};

}  // namespace spool::broker
