#include "broker/admin_api/admin_listener.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <string>

namespace spool::broker {

Result<std::optional<http::HttpServerOptions>> parse_admin_listener(std::string_view value) {
  if (value.empty()) return std::optional<http::HttpServerOptions>{};
  auto bad = [value](const std::string& why) {
    return Status::error("admin.listener '" + std::string(value) + "': " + why);
  };
  if (value.starts_with("https://"))
    return bad("TLS on the admin listener is not supported yet; use http:// on a loopback address, or leave it empty");
  if (!value.starts_with("http://")) return bad("expected http://HOST:PORT or an empty value");
  std::string_view rest = value.substr(7);
  const size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  const std::string_view host = rest.substr(0, colon);
  const std::string_view port = rest.substr(colon + 1);
  if (host.find_first_of("/[]@ ") != std::string_view::npos) return bad("bad host");
  int p = -1;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (ec != std::errc() || end != port.data() + port.size() || p < 0 || p > 65535) return bad("bad port");
  http::HttpServerOptions o;
  o.host = std::string(host);
  o.port = static_cast<uint16_t>(p);
  return std::optional<http::HttpServerOptions>{o};
}

Result<std::unique_ptr<AdminListener>> AdminListener::start(std::string_view value, bool explicit_value,
                                                            AdminAuthMode auth, BrokerContext& ctx,
                                                            const AdminStatus& status,
                                                            ListenerConnections connections) {
  auto options = parse_admin_listener(value);
  if (!options) return options.status();
  if (!*options) {
    spdlog::info("admin listener disabled (admin.listener is empty)");
    return std::unique_ptr<AdminListener>();
  }
  std::unique_ptr<AdminListener> l(new AdminListener());
  l->api_ = std::make_unique<AdminApi>(ctx, status, std::move(connections), auth);
  l->server_ = std::make_unique<http::HttpServer>(
      **options, [api = l->api_.get()](const http::HttpRequest& req) { return api->handle(req); });
  if (Status s = l->server_->start(); !s) {
    if (explicit_value) return s;
    spdlog::warn("{}; running without the admin listener (set admin.listener to another address, or empty)",
                 s.message());
    return std::unique_ptr<AdminListener>();
  }
  spdlog::info("admin listener: http://{}:{} (console at /; /metrics, /v1/health, /v1/ready, /v1/cluster, /v1/topics, /v1/groups, /v1/config)",
               (*options)->host, l->server_->port());
  return l;
}

}  // namespace spool::broker
