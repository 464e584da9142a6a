// Responder: the answer slot of one request.
//
// Contract: copyable and thread-safe; exactly one of send / no_response /
// close takes effect (later calls are ignored with a warning). Responses
// leave the socket in request order no matter in which order (or from which
// threads) the Responders of one connection are completed, so a slow request
// holds back the answers behind it. If the connection is already gone every
// call is a silent no-op, so a Responder may outlive its connection and the
// Server. If the last copy is destroyed without any call, the connection is
// closed (error log): otherwise the client would wait forever.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include <asio/any_io_executor.hpp>

#include "net/response.h"
#include "util/bytes.h"

namespace spool::net {

namespace detail {
class ResponseSlot;
}

class Responder {
 public:
  Responder() = default;  // an empty Responder ignores every call
  explicit Responder(std::shared_ptr<detail::ResponseSlot> slot) : slot_(std::move(slot)) {}

  // response = response header + body, without the 4-byte size prefix.
  void send(Bytes response);
  // The same, with file regions spliced in (zero-copy Fetch answers); the
  // regions are sent with sendfile unless ServerOptions::sendfile is off.
  void send(Response response);
  // The same, and the connection's client is authenticated from this answer
  // on: later frames are bounded by max_request_bytes instead of the
  // listener's max_unauthenticated_request_bytes.
  void send_authenticated(Response response);
  // The same, then closes the connection once this answer is written (a
  // failed authentication: the client learns why, then is cut off).
  void send_then_close(Response response, std::string_view reason);
  // Occupies the slot but writes nothing (acks=0 produce); `mute_ms` as
  // Response::mute_ms (a throttled acks=0 producer), `tag` as
  // ResponseTiming::tag.
  void no_response(int32_t mute_ms = 0, int32_t tag = -1);
  // Closes the connection once every earlier response is written; later
  // responses of that connection are dropped. Logged with reason and peer.
  void close(std::string_view reason);
  // The connection's reactor, for handlers that post work back to it. Only
  // valid while the Server runs (null for an empty Responder).
  asio::any_io_executor executor() const;
  // When the connection read the request's last byte (ResponseTiming::
  // received_ns); 0 for an empty Responder.
  int64_t received_ns() const;

 private:
  std::shared_ptr<detail::ResponseSlot> slot_;
};

}  // namespace spool::net
