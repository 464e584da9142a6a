#include "broker/admin_api/admin_listener.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <charconv>
#include <string>

#include "security/tls_config.h"
#include "security/tls_context.h"

namespace spool::broker {
namespace {

http::HttpResponse probe_answer(int status, const nlohmann::json& body) {
  return http::HttpResponse::json(status, body.dump(2) + "\n");
}

}  // namespace

Result<std::optional<AdminAddress>> parse_admin_listener(std::string_view value) {
  if (value.empty()) return std::optional<AdminAddress>{};
  auto bad = [value](const std::string& why) {
    return Status::error("admin.listener '" + std::string(value) + "': " + why);
  };
  AdminAddress a;
  std::string_view rest;
  if (value.starts_with("http://")) {
    rest = value.substr(7);
  } else if (value.starts_with("https://")) {
    rest = value.substr(8);
    a.https = true;
  } else {
    return bad("expected http://HOST:PORT, https://HOST:PORT or an empty value");
  }
  const size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  const std::string_view host = rest.substr(0, colon);
  const std::string_view port = rest.substr(colon + 1);
  if (host.find_first_of("/[]@ ") != std::string_view::npos) return bad("bad host");
  int p = -1;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (ec != std::errc() || end != port.data() + port.size() || p < 0 || p > 65535) return bad("bad port");
  a.options.host = std::string(host);
  a.options.port = static_cast<uint16_t>(p);
  return std::optional<AdminAddress>{a};
}

Result<std::optional<http::HttpServerOptions>> admin_listener_options(const config::BrokerConfig& cfg) {
  auto address = parse_admin_listener(cfg.get("admin.listener"));
  if (!address) return address.status();
  if (!*address) return std::optional<http::HttpServerOptions>{};
  http::HttpServerOptions o = (*address)->options;
  if ((*address)->https) {
    // The broker-wide ssl.* keys (a listener.name.admin.* override is
    // refused at start as a key Spool does not act on).
    auto tls = security::tls_listener_config(cfg, "ADMIN");
    if (!tls) return Status::error("admin.listener " + cfg.get("admin.listener") + ": " + tls.status().message());
    auto ctx = security::TlsContext::create(*tls, security::TlsContext::Side::kServer);
    if (!ctx) return Status::error("admin.listener " + cfg.get("admin.listener") + ": " + ctx.status().message());
    o.tls = *ctx;
  }
  return std::optional<http::HttpServerOptions>{o};
}

Result<std::unique_ptr<AdminListener>> AdminListener::start(const config::BrokerConfig& cfg) {
  auto options = admin_listener_options(cfg);
  if (!options) return options.status();
  if (!*options) {
    spdlog::info("admin listener disabled (admin.listener is empty)");
    return std::unique_ptr<AdminListener>();
  }
  const bool https = (*options)->tls != nullptr;
  std::unique_ptr<AdminListener> l(new AdminListener());
  l->broker_id_ = cfg.broker_id();
  l->server_ = std::make_unique<http::HttpServer>(
      **options, [self = l.get()](const http::HttpRequest& req) { return self->answer(req); });
  if (Status s = l->server_->start(); !s) {
    if (cfg.is_set("admin.listener")) return s;
    spdlog::warn("{}; running without the admin listener (set admin.listener to another address, or empty)",
                 s.message());
    return std::unique_ptr<AdminListener>();
  }
  spdlog::info("admin listener: {}://{}:{} (console at /; /metrics, /v1/health, /v1/ready, /v1/cluster, /v1/topics, "
               "/v1/groups, /v1/config)",
               https ? "https" : "http", (*options)->host, l->server_->port());
  return l;
}

// The server stops (its thread joins) before the members it calls go.
AdminListener::~AdminListener() { server_->stop(); }

void AdminListener::set_phase(std::string phase) {
  std::lock_guard lock(mu_);
  phase_ = std::move(phase);
}

void AdminListener::attach(std::unique_ptr<AdminApi> api) {
  std::lock_guard lock(mu_);
  api_ = std::move(api);
}

void AdminListener::detach() {
  std::lock_guard lock(mu_);
  api_.reset();
  phase_ = "shutting down";
}

http::HttpResponse AdminListener::answer(const http::HttpRequest& req) {
  std::lock_guard lock(mu_);
  if (api_) return api_->handle(req);
  if (req.path == "/v1/health") return probe_answer(200, {{"status", "live"}, {"broker_id", broker_id_}});
  const nlohmann::json body{{"status", "not ready"}, {"reason", phase_}, {"broker_id", broker_id_}};
  http::HttpResponse r = probe_answer(503, body);
  r.headers["Retry-After"] = "1";
  return r;
}

}  // namespace spool::broker
