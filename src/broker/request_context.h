// RequestContext: one decoded request header plus the way back to the
// client. respond() encodes the response header (v0/v1 by the API's
// flexibility; ApiVersions always v0) and the body at the request's version;
// records given as file regions (protocol::Records) go out as splices, sent
// with sendfile by the connection.
// Copyable; the Responder inside is thread-safe, so a handler may answer from
// any thread (e.g. after a group-committed fsync). Exactly one answer per
// request: respond(), no_response() or close().
#pragma once

#include <algorithm>
#include <climits>
#include <string>
#include <string_view>

#include "broker/listener.h"
#include "broker/metrics/request_metrics.h"
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
  // The frame's size (header and body), what a produce quota counts.
  size_t request_bytes = 0;

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

  // The user a client quota names: the principal's name ("alice" of
  // "User:alice"; "ANONYMOUS" without authentication).
  std::string_view quota_user() const {
    std::string_view p = principal;
    const size_t colon = p.find(':');
    return colon == std::string_view::npos ? p : p.substr(colon + 1);
  }
  std::string_view client_id() const { return header.client_id ? std::string_view(*header.client_id) : ""; }

  // KIP-219: the client is throttled for `ms` (a quota it went over). The
  // answer carries the largest such time in its throttle_time_ms, and the
  // connection reads nothing more from the client for that long. Set before
  // the context is copied into a later answer's closure.
  void add_throttle(int64_t ms) const {
    if (ms > throttled_ms) throttled_ms = static_cast<int32_t>(std::min<int64_t>(ms, INT32_MAX));
  }
  mutable int32_t throttled_ms = 0;  // through add_throttle

  // `size_hint`: bytes to reserve (the buffer comes from net's pool).
  template <typename Response>
  void respond(const Response& resp, size_t size_hint = 128) const {
    RequestMetrics::instance().record_errors(header.api_key, resp);
    if constexpr (requires { resp.throttle_time_ms; }) {
      if (throttled_ms > resp.throttle_time_ms) {  // rare: a throttled client gets a copy with its time
        Response throttled = resp;
        throttled.throttle_time_ms = throttled_ms;
        return send(encode_response(header, throttled, size_hint));
      }
    }
    send(encode_response(header, resp, size_hint));
  }
  void no_response() const { responder.no_response(throttled_ms, header.api_key); }
  void close(std::string_view reason) const { responder.close(reason); }

 private:  // (functions only: the struct stays an aggregate)
  void send(net::Response out) const {
    out.mute_ms = throttled_ms;
    out.timing.tag = header.api_key;  // Dispatcher::on_answered times it
    responder.send(std::move(out));
  }
};

}  // namespace spool::broker
