// What the net layer hands to the layer above: one call per received frame.
//
// Contract: handle(), on_answered() and on_disconnect() run on the
// connection's reactor thread, so they must not block (post slow work
// elsewhere and answer later through the Responder). The handler object
// must outlive the Server. An exception escaping handle() is caught by net
// and closes only that connection (error log); it never takes down the
// reactor (one escaping on_answered() is logged).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "net/responder.h"
#include "util/bytes.h"
#include "util/frame_bytes.h"

namespace spool::net {

// State the handler keeps per connection (e.g. its authentication), created
// by RequestHandler::on_connect and owned by the connection; net never looks
// inside.
class ConnectionSession {
 public:
  virtual ~ConnectionSession() = default;
};

struct ConnectionInfo {
  uint64_t id = 0;    // unique per Server, never reused
  std::string peer;   // "ip:port" ("[ipv6]:port" for IPv6 peers)
  uint32_t listener = 0;  // index of the ServerOptions::listeners entry it came in on
  bool tls = false;       // the connection completed a TLS handshake
  // The TLS client certificate's subject (RFC 2253, as Java prints it); ""
  // without TLS or without a client certificate.
  std::string tls_peer_dn;
  // What on_connect returned (null when it returned null). Used only from
  // handle() and on_disconnect() of this connection, so from one thread at a
  // time.
  std::shared_ptr<ConnectionSession> session;
};

class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // Called once per accepted connection, before its first frame; the result
  // becomes ConnectionInfo::session.
  virtual std::shared_ptr<ConnectionSession> on_connect(const ConnectionInfo& conn) { return nullptr; }
  // frame = the request bytes without the 4-byte size prefix (already
  // bounded by ServerOptions::max_request_bytes, never empty).
  // Responder::received_ns() tells when the frame's last byte was read.
  virtual void handle(const ConnectionInfo& conn, FrameBytes frame, Responder responder) = 0;
  // Called once per answer whose last byte was written, and once per
  // no_response once its turn came, with the request's stages
  // (net/response.h); not for requests closed or dropped. Answers come in
  // request order, but a no_response may come before the answers ahead of
  // it are written. Must not throw.
  virtual void on_answered(const ConnectionInfo& conn, const ResponseTiming& timing) {}
  // Called once per connection after it closed, for any reason (peer EOF,
  // error, idle, limit, Responder::close, Server::stop).
  virtual void on_disconnect(const ConnectionInfo& conn) {}
};

}  // namespace spool::net
