// RequestSender: the port through which the native producer and consumer
// reach brokers. NetworkClient (client/network_client.h) implements it; unit
// tests plug in a fake that records requests and answers them on demand.
//
// Contract (NetworkClient's): send() never blocks and calls its callback
// exactly once, from the sender's I/O thread (or at once, on the caller's
// thread, after shutdown); disconnect() fails what is queued or in flight to
// the node. send_request() is the typed form: it encodes `Req` at the
// negotiated version and decodes the answer as `Resp`, failing with
// NETWORK_EXCEPTION when the answer does not decode.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>

#include "client/wire_frame.h"
#include "protocol/error_code.h"
#include "util/bytes.h"
#include "util/frame_bytes.h"
#include "util/status.h"

namespace spool::client {

// A destination. The connection is per (host, port); the id only names the
// node in messages and logs.
struct Node {
  int32_t id = -1;
  std::string host;
  uint16_t port = 0;
  bool operator==(const Node&) const = default;
};

// A response as bytes. `frame` is the response frame after its size field;
// the body starts at body_offset (after the response header).
struct RawResponse {
  int16_t api_key = 0;
  int16_t version = 0;
  std::shared_ptr<FrameBytes> frame;
  size_t body_offset = 0;
  ByteSpan body() const {
    return frame ? ByteSpan(frame->data() + body_offset, frame->size() - body_offset) : ByteSpan();
  }
};

// A decoded response. `message` may view into `frame` (records fields), so
// keep the Reply (or a copy of `frame`) alive while using those views.
template <class Resp>
struct Reply {
  int16_t version = 0;
  Resp message;
  std::shared_ptr<FrameBytes> frame;
};

// Writes the request body at the negotiated version (on the I/O thread,
// once; it is released right after).
using BodyEncoder = std::function<void(ByteWriter& w, int16_t version)>;
using RawCallback = std::function<void(Result<RawResponse>)>;

struct RawRequest {
  int16_t api_key = 0;
  // The versions the encoder can write; the highest the broker also
  // supports is used (min == max pins one version).
  int16_t min_version = 0;
  int16_t max_version = 0;
  BodyEncoder encode;
  int32_t timeout_ms = -1;  // -1: request_timeout_ms
  // False for a request the broker does not answer (Produce with acks=0):
  // its callback runs once the frame is queued for writing, with a
  // RawResponse that has no frame.
  bool expect_response = true;
};

// Options of the typed send: the range is intersected with the message's
// own [kMinVersion, kMaxVersion].
struct SendOptions {
  int16_t min_version = 0;
  int16_t max_version = INT16_MAX;
  int32_t timeout_ms = -1;  // -1: request_timeout_ms
};

class RequestSender {
 public:
  virtual ~RequestSender() = default;
  virtual void send(const Node& node, RawRequest request, RawCallback callback) = 0;
  virtual void disconnect(const Node& node) = 0;
};

template <class Req, class Resp>
void send_request(RequestSender& sender, const Node& node, Req request,
                  std::function<void(Result<Reply<Resp>>)> callback, SendOptions options = {}) {
  static_assert(Req::kApiKey == Resp::kApiKey, "request and response of different APIs");
  RawRequest raw;
  raw.api_key = Req::kApiKey;
  raw.min_version = std::max(Req::kMinVersion, options.min_version);
  raw.max_version = std::min(Req::kMaxVersion, options.max_version);
  raw.timeout_ms = options.timeout_ms;
  auto shared = std::make_shared<const Req>(std::move(request));
  raw.encode = [shared](ByteWriter& w, int16_t v) { shared->encode(w, v); };
  sender.send(node, std::move(raw), [cb = std::move(callback)](Result<RawResponse> r) {
    if (!r) {
      cb(r.status());
      return;
    }
    Reply<Resp> reply;
    reply.version = r->version;
    reply.frame = r->frame;
    ByteReader reader(r->body());
    if (!reply.message.decode(reader, r->version)) {
      cb(Status::error("malformed " + api_label(Req::kApiKey) + " v" + std::to_string(r->version) + " response",
                       protocol::to_int(protocol::ErrorCode::kNetworkException)));
      return;
    }
    cb(std::move(reply));
  });
}

}  // namespace spool::client
