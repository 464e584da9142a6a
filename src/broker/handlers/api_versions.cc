// ApiVersions: the ranges of the handler table served on this listener, so
// the advertised ranges cannot drift from what the dispatcher serves.
#include "broker/handlers/handlers.h"
#include "protocol/api_versions_request.h"

namespace spool::broker {

void handle_api_versions(BrokerContext&, const RequestContext& ctx, ByteReader& body) {
  protocol::ApiVersionsRequest req;
  if (!decode_or_close(ctx, body, req, "ApiVersions")) return;
  ctx.respond(make_api_versions_response(ctx.listener));
}

}  // namespace spool::broker
