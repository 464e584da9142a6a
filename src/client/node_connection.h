// NodeConnection: NetworkClient's connection to one destination (host,
// port), the state machine behind the contract in client/network_client.h:
//
//   idle --send--> [waiting out the backoff] --> connecting [+ TLS] --> handshake
//        --ApiVersions ok--> [authenticating: SASL] --> ready
//        --error/timeout/close--> idle (+backoff)
//
// Requests submitted before `ready` queue in `pending_` (each with its
// deadline); on `ready` they are negotiated, encoded and written. Written
// requests sit in `inflight_` in write order, which is the order responses
// come back in. Writes are batched: all frames queued while a write is
// under way go out together in the next one.
//
// Threading: every member runs on the client's I/O thread only. Async
// handlers hold a shared_ptr to the connection and the generation they were
// started in; close() bumps the generation, so handlers of a closed socket
// do nothing. Owned by NetworkClient (one per destination, kept until
// shutdown).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

// Standard headers first: asio's config picks aligned_alloc from them, and
// every translation unit must pick the same (ODR; ASan reports a mismatch).
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>

#include "client/network_client.h"
#include "client/reconnect_backoff.h"
#include "client/wire_frame.h"
#include "net/tls_stream.h"
#include "security/sasl_client.h"

namespace spool::client {

class NodeConnection : public std::enable_shared_from_this<NodeConnection> {
 public:
  using Clock = std::chrono::steady_clock;

  NodeConnection(asio::io_context& ctx, const NetworkClientOptions& options, Node node, uint64_t seed);

  void submit(RawRequest request, RawCallback callback);
  // Fails everything queued or in flight with `why` and closes the socket.
  // `backoff`: count it as a failure (the next connect waits).
  void close(const Status& why, bool backoff);

 private:
  enum class State { kIdle, kWaiting, kConnecting, kHandshake, kAuthenticating, kReady };
  // The connection's own requests (no callback), answered in on_internal.
  enum class Internal : uint8_t { kNone, kApiVersions, kSaslHandshake, kSaslAuthenticate };
  struct Call {
    RawRequest request;
    RawCallback callback;  // empty for the connection's own requests
    Internal internal = Internal::kNone;
    Clock::time_point deadline;
    int16_t version = -1;
    int32_t correlation_id = 0;
  };

  using ReadDone = std::function<void(const std::error_code&, size_t)>;

  void start_connect();
  void begin_connect();
  void on_connected();
  // TLS (node_connection_tls.cc): the handshake after the TCP connect, within
  // the connect timeout; reads and writes through tls_.
  void start_tls();
  void continue_tls_handshake();
  void after_connect();
  void tls_flush();
  // On a failure `done` is not called: the connection closes (posted) with
  // the TLS reason.
  void tls_read_exact(uint8_t* data, size_t n, size_t have, ReadDone done);
  // tls_'s last error without its "TLS read failed: " prefix.
  std::string tls_error_detail() const;
  void send_handshake(int16_t version);
  void on_handshake(const RawResponse& resp);
  // SASL (node_connection_sasl.cc): the exchange after ApiVersions.
  void start_sasl();
  void send_internal(Internal kind, int16_t version, std::function<void(ByteWriter&, int16_t)> encode);
  void on_sasl_handshake(const RawResponse& resp);
  void on_sasl_authenticate(const RawResponse& resp);
  void become_ready();
  void dispatch(Call call);
  void write_call(Call call, int16_t version);
  void flush();
  void read_size();
  void read_frame(int32_t size);
  void on_frame(std::shared_ptr<FrameBytes> frame);
  void arm_deadline();
  void on_deadline();
  void complete(Call& call, Result<RawResponse> result);

  std::string describe() const;  // "node 1 (127.0.0.1:9092)"
  // NETWORK_EXCEPTION: "<what> <describe()>..."
  Status network_error(const std::string& what) const;

  asio::io_context& ctx_;
  const NetworkClientOptions& options_;
  Node node_;
  asio::ip::tcp::resolver resolver_;
  asio::ip::tcp::socket socket_;
  asio::steady_timer connect_timer_;   // connect timeout, or the backoff wait
  asio::steady_timer deadline_timer_;  // earliest request deadline
  Clock::time_point armed_deadline_ = Clock::time_point::max();

  State state_ = State::kIdle;
  uint64_t gen_ = 0;
  ReconnectBackoff backoff_;
  Clock::time_point next_attempt_{};
  ApiVersionTable versions_;
  std::unique_ptr<security::SaslClient> sasl_;  // during kAuthenticating
  std::unique_ptr<net::TlsStream> tls_;          // on a TLS connection
  Bytes tls_out_;                                // being written through tls_ (kept for OpenSSL's retries)
  size_t tls_out_off_ = 0;
  // KIP-368: when the broker ends the SASL session (its
  // connections.max.reauth.ms), less a tenth; a send after it, with nothing
  // in flight, reconnects (and logs in again) instead of being refused.
  Clock::time_point session_end_ = Clock::time_point::max();
  int32_t next_correlation_id_ = 1;

  std::deque<Call> pending_;   // not written yet (no connection)
  std::deque<Call> inflight_;  // written, in order
  std::vector<Bytes> outq_;    // frames waiting for the current write
  bool writing_ = false;
  uint8_t size_buf_[4] = {};
};

}  // namespace spool::client
