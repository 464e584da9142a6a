// What every handler needs. The handlers themselves are declared, and listed
// with their API and version range, in handler_table.h; each lives in its
// own file in this folder. A handler decodes the body at ctx.version(),
// validates it, acts through the BrokerContext, and answers exactly once
// through ctx (possibly later, from another thread). An undecodable body
// closes the connection.
#pragma once

#include "broker/broker_context.h"
#include "broker/handlers/handler_table.h"
#include "broker/request_context.h"
#include "util/bytes.h"

namespace spool::broker {

// Decodes `req` from body, or closes the connection with a log line naming
// the API and returns false. Trailing bytes after the body are refused too.
template <typename Request>
bool decode_or_close(const RequestContext& ctx, ByteReader& body, Request& req, const char* api) {
  if (req.decode(body, ctx.version()) && body.ok() && body.remaining() == 0) return true;
  ctx.close(std::string("undecodable ") + api + " v" + std::to_string(ctx.version()) + " request");
  return false;
}

}  // namespace spool::broker
