#include "broker/dispatcher.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "broker/client_quota_manager.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_table.h"
#include "broker/handlers/handlers.h"
#include "broker/sasl_authenticator.h"
#include "protocol/api_table.h"
#include "protocol/api_versions_request.h"
#include "util/clock.h"

namespace spool::broker {
namespace {

// Requests no request-time quota holds (Kafka's exempt ones): ApiVersions,
// the SASL exchange and the inter-broker APIs.
bool request_quota_exempt(const ApiEntry& api) { return api.authz == Authz::kNone || api.authz == Authz::kClusterAction; }

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The principal of an SSL connection with a client certificate, or why its
// subject has none.
struct CertificatePrincipal : net::ConnectionSession {
  std::string principal;
  std::string refusal;
};

}  // namespace

std::shared_ptr<net::ConnectionSession> Dispatcher::on_connect(const net::ConnectionInfo& conn) {
  if (conn.listener >= listeners_.size()) return nullptr;
  const ServedListener& on = listeners_[conn.listener];
  if (on.sasl) return std::make_shared<SaslAuthenticator>(on.sasl);
  if (!on.ssl_principal || conn.tls_peer_dn.empty()) return nullptr;
  auto session = std::make_shared<CertificatePrincipal>();
  auto name = on.ssl_principal->name_for(conn.tls_peer_dn);
  if (name) {
    session->principal = "User:" + *name;
  } else {
    session->refusal = name.status().message();
  }
  return session;
}

void Dispatcher::on_answered(const net::ConnectionInfo&, const net::ResponseTiming& timing) {
  // Tagged by RequestContext with the API key; untagged answers (a SASL
  // token, the KIP-511 fallback) are not timed.
  if (timing.tag < 0 || timing.tag >= RequestMetrics::kMaxApiKey) return;
  RequestMetrics::instance().record_answered(static_cast<int16_t>(timing.tag),
                                             static_cast<double>(timing.remote_ns()) * 1e-6,
                                             static_cast<double>(timing.send_ns()) * 1e-6,
                                             static_cast<double>(timing.total_ns()) * 1e-6);
}

void Dispatcher::handle(const net::ConnectionInfo& conn, FrameBytes frame, net::Responder responder) {
  ByteReader r(frame.data(), frame.size());
  if (conn.listener >= listeners_.size()) {  // a server with more listeners than this dispatcher knows
    responder.close(fmt::format("no dispatch entry for listener {}", conn.listener));
    return;
  }
  const ServedListener& on = listeners_[conn.listener];
  auto* auth = on.sasl ? static_cast<SaslAuthenticator*>(conn.session.get()) : nullptr;
  if (on.sasl && auth == nullptr) {
    responder.close("no authentication state on a SASL listener");
    return;
  }
  if (auth != nullptr && auth->expects_raw_token()) {
    auth->on_raw_token(frame, std::move(responder), steady_ms());
    return;
  }
  // The end of the request's queue time and the start of its local time
  // (metrics/request_metrics.h).
  const int64_t dispatched_ns = steady_clock_ns();
  const int64_t received_ns = responder.received_ns();
  RequestContext ctx{{}, conn, std::move(responder), on.name, on.roles};
  ctx.request_bytes = frame.size();
  if (on.ssl_principal && conn.session) {
    const auto& cert = static_cast<const CertificatePrincipal&>(*conn.session);
    if (!cert.refusal.empty()) {
      spdlog::warn("closing the connection from {}: its certificate maps to no principal: {}", conn.peer, cert.refusal);
      ctx.close(cert.refusal);
      return;
    }
    ctx.principal = cert.principal;
  }
  if (!protocol::decode_request_header(r, ctx.header)) {
    ctx.close("undecodable request header");
    return;
  }
  const auto& h = ctx.header;
  if (auth != nullptr) {
    const int64_t now = steady_ms();
    switch (auth->route(h.api_key, now)) {
      case SaslAuthenticator::Route::kServe:
        ctx.principal = auth->principal();
        break;
      case SaslAuthenticator::Route::kAuthenticate:
        auth->on_request(ctx, r, now);
        return;
      case SaslAuthenticator::Route::kReject:
      case SaslAuthenticator::Route::kExpired:
        ctx.close(auth->refusal(h.api_key));
        return;
    }
  }
  const ApiEntry* api = find_served_api(h.api_key, on.roles);
  if (h.api_key == protocol::ApiVersionsRequest::kApiKey && (api == nullptr || h.api_version > api->max_version)) {
    // KIP-511: a client newer than us learns our range from a v0-shaped answer.
    ctx.responder.send(encode_unsupported_api_versions(h.correlation_id, on.roles));
    return;
  }
  if (api == nullptr) {
    const std::string_view name = protocol::api_name(h.api_key);
    ctx.close(fmt::format("unknown api key {}{}{}", h.api_key, name.empty() ? "" : " ", name));
    return;
  }
  if (h.api_version < api->min_version || h.api_version > api->max_version) {
    ctx.close(fmt::format("unsupported version {} of {} (serving {}..{})", h.api_version, api->name,
                          api->min_version, api->max_version));
    return;
  }
  // The table's Authz gate: the other rows check in their handlers.
  if (api->authz == Authz::kClusterAction && !cluster_allowed(ctx_, ctx, security::AclOperation::kClusterAction)) {
    spdlog::warn("closing the connection of {} from {}: {} needs CLUSTER_ACTION on the cluster", ctx.principal,
                 ctx.conn.peer, api->name);
    ctx.close(fmt::format("{} not authorized for {}", ctx.principal, api->name));
    return;
  }
  // The request's queue time and its handler's time on this thread (Kafka's
  // local time), for the metrics.
  struct LocalTime {
    int16_t api_key;
    int64_t received_ns;
    int64_t dispatched_ns;
    ~LocalTime() {
      const int64_t queue_ns = received_ns > 0 ? dispatched_ns - received_ns : 0;
      RequestMetrics::instance().record_handled(api_key, static_cast<double>(queue_ns) * 1e-6,
                                                static_cast<double>(steady_clock_ns() - dispatched_ns) * 1e-6);
    }
  } local{h.api_key, received_ns, dispatched_ns};
  if (ctx_.quotas == nullptr || !ctx_.quotas->active(QuotaKind::kRequest) || request_quota_exempt(*api)) {
    api->handler(ctx_, ctx, r);
    return;
  }
  // request_percentage: the handler's time on this reactor thread, in
  // percent-seconds of one thread. The throttle comes from the time used
  // before this request (Kafka charges after answering; the difference is
  // one request), so this answer already carries it.
  const auto start = std::chrono::steady_clock::now();
  ctx.add_throttle(ctx_.quotas->throttle(QuotaKind::kRequest, ctx.quota_user(), ctx.client_id(), steady_ms()));
  api->handler(ctx_, ctx, r);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  ctx_.quotas->record(QuotaKind::kRequest, ctx.quota_user(), ctx.client_id(), static_cast<double>(ns) * 1e-7,
                      steady_ms());
}

}  // namespace spool::broker
