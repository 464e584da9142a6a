// RequestContext: one decoded request header plus the way back to the
// client. respond() encodes the response header (v0/v1 by the API's
// flexibility; ApiVersions always v0) and the body at the request's version.
// Copyable; the Responder inside is thread-safe, so a handler may answer from
// any thread (e.g. after a group-committed fsync). Exactly one answer per
// request: respond(), no_response() or close().
#pragma once

#include <string_view>

#include "net/request_handler.h"
#include "protocol/header.h"
#include "util/bytes.h"

namespace spool::broker {

struct RequestContext {
  protocol::RequestHeader header;
  net::ConnectionInfo conn;
  mutable net::Responder responder;  // thread-safe; answering does not change the context

  int16_t version() const { return header.api_version; }

  template <typename Response>
  void respond(const Response& resp) const {
    ByteWriter w(128);
    protocol::encode_response_header(
        w, header.correlation_id, protocol::response_header_flexible(header.api_key, header.api_version));
    resp.encode(w, header.api_version);
    responder.send(w.take());
  }
  void no_response() const { responder.no_response(); }
  void close(std::string_view reason) const { responder.close(reason); }
};

}  // namespace spool::broker
