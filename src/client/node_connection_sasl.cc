// NodeConnection's SASL step (client/node_connection.h): after ApiVersions,
// SaslHandshake v1 names the mechanism, then SaslAuthenticate carries the
// exchange (security/sasl_client.h) until the client side is done; only then
// are the queued requests written.
#include <spdlog/spdlog.h>

#include "client/node_connection.h"
#include "protocol/sasl_authenticate_request.h"
#include "protocol/sasl_authenticate_response.h"
#include "protocol/sasl_handshake_request.h"
#include "protocol/sasl_handshake_response.h"

namespace spool::client {

void NodeConnection::start_sasl() {
  state_ = State::kAuthenticating;
  const ClientSecurity& sec = *options_.security;
  sasl_ = security::new_sasl_client(sec.sasl_mechanism, sec.user, sec.password);
  if (!sasl_ || !versions_.negotiate(protocol::SaslHandshakeRequest::kApiKey, 1, 1)) {
    close(network_error("cannot authenticate to " + describe() + ": " +
                        (sasl_ ? "it does not serve SaslHandshake v1" : "mechanism " + sec.sasl_mechanism + " not supported")),
          true);
    return;
  }
  auto req = std::make_shared<protocol::SaslHandshakeRequest>();
  req->mechanism = sec.sasl_mechanism;
  send_internal(Internal::kSaslHandshake, 1, [req](ByteWriter& w, int16_t v) { req->encode(w, v); });
}

void NodeConnection::on_sasl_handshake(const RawResponse& resp) {
  ByteReader r(resp.body());
  protocol::SaslHandshakeResponse decoded;
  if (!decoded.decode(r, resp.version)) {
    close(network_error("SASL handshake with " + describe() + " failed: malformed response"), true);
    return;
  }
  if (decoded.error_code != protocol::ErrorCode::kNone) {
    std::string offered;
    for (const auto& m : decoded.mechanisms) offered += (offered.empty() ? "" : ", ") + m;
    close(network_error("SASL handshake with " + describe() + " failed: mechanism " +
                        options_.security->sasl_mechanism + " is not enabled there (it offers: " + offered + ")"),
          true);
    return;
  }
  auto v = versions_.negotiate(protocol::SaslAuthenticateRequest::kApiKey, 0, 2);
  if (!v) {
    close(network_error("SASL with " + describe() + " failed: " + v.status().message()), true);
    return;
  }
  auto req = std::make_shared<protocol::SaslAuthenticateRequest>();
  req->auth_bytes = sasl_->first();
  send_internal(Internal::kSaslAuthenticate, *v, [req](ByteWriter& w, int16_t ver) { req->encode(w, ver); });
}

void NodeConnection::on_sasl_authenticate(const RawResponse& resp) {
  ByteReader r(resp.body());
  protocol::SaslAuthenticateResponse decoded;
  if (!decoded.decode(r, resp.version)) {
    close(network_error("SASL authentication with " + describe() + " failed: malformed response"), true);
    return;
  }
  if (decoded.error_code != protocol::ErrorCode::kNone) {
    close(network_error("SASL authentication with " + describe() + " failed: " +
                        decoded.error_message.value_or("error code " + std::to_string(protocol::to_int(decoded.error_code)))),
          true);
    return;
  }
  auto next = sasl_->next(decoded.auth_bytes);
  if (!next) {
    close(network_error("SASL authentication with " + describe() + " failed: " + next.status().message()), true);
    return;
  }
  if (sasl_->done()) {
    sasl_.reset();
    if (decoded.session_lifetime_ms > 0) {
      session_end_ = Clock::now() + std::chrono::milliseconds(decoded.session_lifetime_ms * 9 / 10);
    }
    become_ready();
    return;
  }
  auto req = std::make_shared<protocol::SaslAuthenticateRequest>();
  req->auth_bytes = std::move(*next);
  send_internal(Internal::kSaslAuthenticate, resp.version, [req](ByteWriter& w, int16_t ver) { req->encode(w, ver); });
}

}  // namespace spool::client
