// ApiVersions: the served-API table, straight from protocol/api_table so the
// advertised ranges cannot drift from what the dispatcher serves.
#include "broker/handlers/handlers.h"
#include "protocol/api_table.h"
#include "protocol/messages.h"

namespace spool::broker {

void handle_api_versions(BrokerContext&, const RequestContext& ctx, ByteReader& body) {
  protocol::ApiVersionsRequest req;
  if (!decode_or_close(ctx, body, req, "ApiVersions")) return;
  ctx.respond(protocol::make_api_versions_response(ctx.version()));
}

}  // namespace spool::broker
