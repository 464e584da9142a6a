// RequestContext: one decoded request header plus the way back to the
// client. respond() encodes the response header (v0/v1 by the API's
// flexibility; ApiVersions always v0) and the body at the request's version;
// records given as file regions (protocol::Records) go out as splices, sent
// with sendfile by the connection.
// Copyable; the Responder inside is thread-safe, so a handler may answer from
// any thread (e.g. after a group-committed fsync). Exactly one answer per
// request: respond(), no_response() or close().
#pragma once

#include <string>
#include <string_view>

#include "broker/listener.h"
#include "net/buffer_pool.h"
#include "net/request_handler.h"
#include "net/response.h"
#include "protocol/header.h"
#include "util/bytes.h"

namespace spool::broker {

// The answer to `request` as the connection sends it: response header and
// body, records held as file regions left as splices.
template <typename Response>
net::Response encode_response(const protocol::RequestHeader& request, const Response& resp, size_t size_hint) {
  ByteWriter w(ByteWriter::collect_splices, net::acquire_buffer(size_hint));
  protocol::encode_response_header(w, request.correlation_id,
                                   protocol::response_header_flexible(request.api_key, request.api_version));
  resp.encode(w, request.api_version);
  net::Response out;
  out.splices = w.take_splices();
  out.bytes = w.take();
  return out;
}

struct RequestContext {
  protocol::RequestHeader header;
  net::ConnectionInfo conn;
  mutable net::Responder responder;  // thread-safe; answering does not change the context
  // The name of the listener the request arrived on (a copy: a parked
  // request may outlive the Dispatcher; names fit the small-string buffer).
  std::string listener_name = "PLAINTEXT";
  // The roles that listener plays (kClientAndInterBroker on a cluster member).
  ListenerSet roles = kClientOnly;
  // Who sent it: "User:<name>" on a SASL listener once authenticated,
  // "User:ANONYMOUS" on a PLAINTEXT one (Kafka's KafkaPrincipal form).
  std::string principal = "User:ANONYMOUS";

  int16_t version() const { return header.api_version; }
  // The client's address without the port: "10.0.0.1" of "10.0.0.1:5000",
  // "::1" of "[::1]:5000" (the host an ACL names).
  std::string_view client_address() const {
    std::string_view peer = conn.peer;
    if (peer.starts_with('[')) {
      const size_t close = peer.find(']');
      return close == std::string_view::npos ? peer.substr(1) : peer.substr(1, close - 1);
    }
    const size_t colon = peer.rfind(':');
    return colon == std::string_view::npos ? peer : peer.substr(0, colon);
  }

  // `size_hint`: bytes to reserve (the buffer comes from net's pool).
  template <typename Response>
  void respond(const Response& resp, size_t size_hint = 128) const {
    responder.send(encode_response(header, resp, size_hint));
  }
  void no_response() const { responder.no_response(); }
  void close(std::string_view reason) const { responder.close(reason); }
};

}  // namespace spool::broker
