// SaslHandshake and SaslAuthenticate as the handler table serves them: on a
// connection that needs no authentication (a PLAINTEXT listener), or after
// authentication when re-authentication is off. Kafka's KafkaApis answers
// both with ILLEGAL_SASL_STATE there; the exchanges themselves are the
// SaslAuthenticator's (broker/sasl_authenticator.h), which the dispatcher
// hands them to on SASL listeners.
#include "broker/handlers/handlers.h"
#include "protocol/error_code.h"
#include "protocol/sasl_authenticate_request.h"
#include "protocol/sasl_authenticate_response.h"
#include "protocol/sasl_handshake_request.h"
#include "protocol/sasl_handshake_response.h"

namespace spool::broker {

void handle_sasl_handshake(BrokerContext&, const RequestContext& ctx, ByteReader& body) {
  protocol::SaslHandshakeRequest req;
  if (!decode_or_close(ctx, body, req, "SaslHandshake")) return;
  protocol::SaslHandshakeResponse resp;
  resp.error_code = protocol::ErrorCode::kIllegalSaslState;
  ctx.respond(resp);
}

void handle_sasl_authenticate(BrokerContext&, const RequestContext& ctx, ByteReader& body) {
  protocol::SaslAuthenticateRequest req;
  if (!decode_or_close(ctx, body, req, "SaslAuthenticate")) return;
  protocol::SaslAuthenticateResponse resp;
  resp.error_code = protocol::ErrorCode::kIllegalSaslState;
  resp.error_message = "SaslAuthenticate request received after successful authentication";
  ctx.respond(resp);
}

}  // namespace spool::broker
