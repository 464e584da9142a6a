#include "broker/dispatcher.h"

#include <spdlog/spdlog.h>

#include "broker/handlers/handler_table.h"
#include "broker/handlers/handlers.h"
#include "protocol/api_table.h"
#include "protocol/api_versions_request.h"

namespace spool::broker {

void Dispatcher::handle(const net::ConnectionInfo& conn, FrameBytes frame, net::Responder responder) {
  ByteReader r(frame.data(), frame.size());
  if (conn.listener >= listeners_.size()) {  // a server with more listeners than this dispatcher knows
    responder.close(fmt::format("no dispatch entry for listener {}", conn.listener));
    return;
  }
  const ServedListener& on = listeners_[conn.listener];
  RequestContext ctx{{}, conn, std::move(responder), on.name, on.roles};
  if (!protocol::decode_request_header(r, ctx.header)) {
    ctx.close("undecodable request header");
    return;
  }
  const auto& h = ctx.header;
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
  api->handler(ctx_, ctx, r);
}

}  // namespace spool::broker
