// What the net layer hands to the layer above: one call per received frame.
//
// Contract: handle() and on_disconnect() run on the connection's reactor
// thread, so they must not block (post slow work elsewhere and answer later
// through the Responder). The handler object must outlive the Server. An
// exception escaping handle() is caught by net and closes only that
// connection (error log); it never takes down the reactor.
#pragma once

#include <cstdint>
#include <string>

#include "net/responder.h"
#include "util/bytes.h"
#include "util/frame_bytes.h"

namespace spool::net {

struct ConnectionInfo {
  uint64_t id = 0;    // unique per Server, never reused
  std::string peer;   // "ip:port" ("[ipv6]:port" for IPv6 peers)
  uint32_t listener = 0;  // index of the ServerOptions::listeners entry it came in on
};

class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // frame = the request bytes without the 4-byte size prefix (already
  // bounded by ServerOptions::max_request_bytes, never empty).
  virtual void handle(const ConnectionInfo& conn, FrameBytes frame, Responder responder) = 0;
  // Called once per connection after it closed, for any reason (peer EOF,
  // error, idle, limit, Responder::close, Server::stop).
  virtual void on_disconnect(const ConnectionInfo& conn) {}
};

}  // namespace spool::net
