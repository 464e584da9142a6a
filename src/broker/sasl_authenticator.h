// SaslAuthenticator: the authentication state of one connection on a SASL
// listener (Kafka's SaslServerAuthenticator), kept as its net session.
//
// Until the client is authenticated only these are served: ApiVersions
// (before the handshake), SaslHandshake v0-1, then SaslAuthenticate v0-2
// (after a v1 handshake) or raw size-prefixed tokens (after a v0 handshake,
// the framing of old clients). Anything else closes the connection. An
// unsupported mechanism gets UNSUPPORTED_SASL_MECHANISM with the enabled
// ones, a failed exchange SASL_AUTHENTICATION_FAILED with the reason; both
// close the connection after the answer (a raw-token failure just closes,
// as that framing has no error). A failed exchange waits
// connection.failed.authentication.delay.ms before its answer and close. The answer that completes the exchange
// lifts the pre-authentication frame bound (Responder::send_authenticated).
//
// KIP-368: with connections.max.reauth.ms > 0 the session lifetime is told
// in SaslAuthenticate v1+; a request other than SaslHandshake after it
// expires closes the connection, and a SaslHandshake on an authenticated
// connection starts a re-authentication, which must keep the mechanism and
// the principal. With 0, a SaslHandshake after authentication is served by
// the handler table (ILLEGAL_SASL_STATE, as Kafka).
//
// Threading: used only by the Dispatcher from its connection's reactor
// thread, one frame at a time; answers synchronously.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "broker/request_context.h"
#include "net/request_handler.h"
#include "security/sasl_listener.h"
#include "security/sasl_server.h"
#include "util/bytes.h"
#include "util/frame_bytes.h"

namespace spool::broker {

class SaslAuthenticator : public net::ConnectionSession {
 public:
  explicit SaslAuthenticator(std::shared_ptr<const security::SaslListenerConfig> config)
      : config_(std::move(config)) {}

  enum class Route : uint8_t {
    kServe,         // an ordinary request: the handler table serves it
    kAuthenticate,  // part of the authentication: on_request()
    kReject,        // not allowed now (before authentication, or mid-way): close
    kExpired,       // the session's lifetime is over (KIP-368): close
  };
  Route route(int16_t api_key, int64_t now_ms) const;
  // After a v0 handshake, frames are raw tokens without a request header.
  bool expects_raw_token() const { return state_ == State::kRawToken; }

  // A request routed kAuthenticate (body after the header).
  void on_request(const RequestContext& ctx, ByteReader& body, int64_t now_ms);
  // A raw token frame (expects_raw_token()).
  void on_raw_token(const FrameBytes& frame, net::Responder responder, int64_t now_ms);

  // "User:<name>" once authenticated; "User:ANONYMOUS" before.
  const std::string& principal() const { return principal_; }
  // Why the connection is refused (for route() kReject / kExpired).
  std::string refusal(int16_t api_key) const;

 private:
  enum class State : uint8_t { kHandshakeOrVersions, kAuthenticate, kRawToken, kAuthenticated, kReauthenticate };

  void on_handshake(const RequestContext& ctx, ByteReader& body);
  void on_authenticate(const RequestContext& ctx, ByteReader& body, int64_t now_ms);
  // The exchange finished for `user`; false (and why) when a re-authentication
  // changed the principal.
  bool finish(const std::string& user, int64_t now_ms, std::string& why);

  std::shared_ptr<const security::SaslListenerConfig> config_;
  State state_ = State::kHandshakeOrVersions;
  std::unique_ptr<security::SaslServer> exchange_;
  std::string mechanism_;  // of the current or last exchange
  std::string principal_ = "User:ANONYMOUS";
  int64_t expires_at_ms_ = INT64_MAX;  // session end (KIP-368)
};

}  // namespace spool::broker
