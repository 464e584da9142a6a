#include "broker/sasl_authenticator.h"

#include <chrono>
#include <memory>

#include <asio/steady_timer.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "broker/handlers/handlers.h"
#include "protocol/api_table.h"
#include "protocol/api_versions_request.h"
#include "protocol/error_code.h"
#include "protocol/sasl_authenticate_request.h"
#include "protocol/sasl_authenticate_response.h"
#include "protocol/sasl_handshake_request.h"
#include "protocol/sasl_handshake_response.h"

namespace spool::broker {
namespace {

constexpr int16_t kApiVersions = protocol::ApiVersionsRequest::kApiKey;
constexpr int16_t kHandshake = protocol::SaslHandshakeRequest::kApiKey;
constexpr int16_t kAuthenticate = protocol::SaslAuthenticateRequest::kApiKey;

std::string api_label(int16_t api_key) {
  const std::string_view name = protocol::api_name(api_key);
  return name.empty() ? fmt::format("api key {}", api_key) : std::string(name);
}

// A failed login is answered (when `answer` is set) and closed only after
// connection.failed.authentication.delay.ms, as Kafka does: a client
// guessing passwords gets one try per delay per connection. The wait is a
// timer on the connection's reactor; the connection reads nothing meanwhile
// (its answer slot is pending).
void fail_after(int32_t delay_ms, net::Responder responder, std::optional<net::Response> answer, std::string why) {
  auto finish = [responder, why](std::optional<net::Response> a) mutable {
    if (a) {
      responder.send_then_close(std::move(*a), why);
    } else {
      responder.close(why);
    }
  };
  asio::any_io_executor ex = responder.executor();
  if (delay_ms <= 0 || !ex) {
    finish(std::move(answer));
    return;
  }
  auto timer = std::make_shared<asio::steady_timer>(ex, std::chrono::milliseconds(delay_ms));
  timer->async_wait([timer, finish = std::move(finish), answer = std::move(answer)](const std::error_code&) mutable {
    finish(std::move(answer));
  });
}

}  // namespace

SaslAuthenticator::Route SaslAuthenticator::route(int16_t api_key, int64_t now_ms) const {
  switch (state_) {
    case State::kHandshakeOrVersions:
      if (api_key == kApiVersions) return Route::kServe;
      return api_key == kHandshake ? Route::kAuthenticate : Route::kReject;
    case State::kAuthenticate:
    case State::kReauthenticate:
      return api_key == kAuthenticate ? Route::kAuthenticate : Route::kReject;
    case State::kRawToken:
      return Route::kReject;  // the dispatcher hands raw tokens over before decoding a header
    case State::kAuthenticated:
      if (api_key == kHandshake && config_->max_reauth_ms > 0) return Route::kAuthenticate;
      return now_ms >= expires_at_ms_ ? Route::kExpired : Route::kServe;
  }
  return Route::kReject;
}

std::string SaslAuthenticator::refusal(int16_t api_key) const {
  if (state_ == State::kAuthenticated) {
    return fmt::format("{} after the session of {} expired (connections.max.reauth.ms={}; the client did not "
                       "re-authenticate)", api_label(api_key), principal_, config_->max_reauth_ms);
  }
  return fmt::format("unexpected {} during SASL authentication on listener {} (expected {})", api_label(api_key),
                     config_->listener,
                     state_ == State::kHandshakeOrVersions ? "ApiVersions or SaslHandshake" : "SaslAuthenticate");
}

void SaslAuthenticator::on_request(const RequestContext& ctx, ByteReader& body, int64_t now_ms) {
  if (ctx.header.api_key == kHandshake) {
    on_handshake(ctx, body);
  } else {
    on_authenticate(ctx, body, now_ms);
  }
}

void SaslAuthenticator::on_handshake(const RequestContext& ctx, ByteReader& body) {
  protocol::SaslHandshakeRequest req;
  if (!decode_or_close(ctx, body, req, "SaslHandshake")) return;
  const bool reauth = state_ == State::kAuthenticated;
  protocol::SaslHandshakeResponse resp;
  resp.mechanisms = config_->mechanisms;
  std::unique_ptr<security::SaslServer> exchange = config_->new_server(req.mechanism);
  std::string why;
  if (exchange == nullptr) {
    why = fmt::format("unsupported SASL mechanism '{}' on listener {}", req.mechanism, config_->listener);
  } else if (reauth && req.mechanism != mechanism_) {
    why = fmt::format("re-authentication with mechanism {} on a session authenticated with {}", req.mechanism,
                      mechanism_);
  } else if (reauth && ctx.version() == 0) {
    why = "re-authentication needs SaslHandshake v1 (SaslAuthenticate), got v0";
  }
  if (!why.empty()) {
    resp.error_code = protocol::ErrorCode::kUnsupportedSaslMechanism;
    ctx.responder.send_then_close(encode_response(ctx.header, resp, 64), why);
    return;
  }
  exchange_ = std::move(exchange);
  mechanism_ = req.mechanism;
  state_ = reauth ? State::kReauthenticate : ctx.version() == 0 ? State::kRawToken : State::kAuthenticate;
  ctx.respond(resp);
}

void SaslAuthenticator::on_authenticate(const RequestContext& ctx, ByteReader& body, int64_t now_ms) {
  protocol::SaslAuthenticateRequest req;
  if (!decode_or_close(ctx, body, req, "SaslAuthenticate")) return;
  security::SaslStep step = exchange_->evaluate(req.auth_bytes);
  protocol::SaslAuthenticateResponse resp;
  if (step.outcome == security::SaslStep::Outcome::kDone && !finish(step.user, now_ms, step.error)) {
    step.outcome = security::SaslStep::Outcome::kFailed;
  }
  switch (step.outcome) {
    case security::SaslStep::Outcome::kContinue:
      resp.auth_bytes = std::move(step.challenge);
      ctx.respond(resp);
      return;
    case security::SaslStep::Outcome::kDone:
      resp.auth_bytes = std::move(step.challenge);
      resp.session_lifetime_ms = config_->max_reauth_ms;
      ctx.responder.send_authenticated(encode_response(ctx.header, resp, 64 + resp.auth_bytes.size()));
      return;
    case security::SaslStep::Outcome::kFailed:
      resp.error_code = protocol::ErrorCode::kSaslAuthenticationFailed;
      resp.error_message = step.error;
      fail_after(config_->failed_delay_ms, ctx.responder, encode_response(ctx.header, resp, 64 + step.error.size()),
                 fmt::format("SASL/{} authentication failed on listener {}: {}", mechanism_, config_->listener,
                             step.error));
      return;
  }
}

void SaslAuthenticator::on_raw_token(const FrameBytes& frame, net::Responder responder, int64_t now_ms) {
  security::SaslStep step = exchange_->evaluate(std::span<const uint8_t>(frame.data(), frame.size()));
  if (step.outcome == security::SaslStep::Outcome::kDone && !finish(step.user, now_ms, step.error)) {
    step.outcome = security::SaslStep::Outcome::kFailed;
  }
  switch (step.outcome) {
    case security::SaslStep::Outcome::kContinue:
      responder.send(std::move(step.challenge));
      return;
    case security::SaslStep::Outcome::kDone:
      responder.send_authenticated(net::Response(std::move(step.challenge)));
      return;
    case security::SaslStep::Outcome::kFailed:
      // The v0 framing has no way to say why: the client sees the close.
      fail_after(config_->failed_delay_ms, std::move(responder), std::nullopt,
                 fmt::format("SASL/{} authentication failed on listener {}: {}", mechanism_, config_->listener,
                             step.error));
      return;
  }
}

bool SaslAuthenticator::finish(const std::string& user, int64_t now_ms, std::string& why) {
  const std::string principal = "User:" + user;
  if (state_ == State::kReauthenticate && principal != principal_) {
    why = "Cannot change principals during re-authentication from " + principal_ + " to " + principal;
    return false;
  }
  if (state_ != State::kReauthenticate) {
    spdlog::debug("sasl: {} authenticated with {} on listener {}", principal, mechanism_, config_->listener);
  }
  principal_ = principal;
  state_ = State::kAuthenticated;
  exchange_.reset();
  expires_at_ms_ = config_->max_reauth_ms > 0 ? now_ms + config_->max_reauth_ms : INT64_MAX;
  return true;
}

}  // namespace spool::broker
