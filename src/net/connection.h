// Connection: one accepted socket — framing, dispatch, in-order answers.
// Internal to net (not part of the public API).
//
// Threading: every member runs on the owning reactor's thread except
// complete_from_any_thread() and closed(), which Responders call from
// anywhere. Lifetime: shared_ptr; the reactor's map owns an open connection,
// pending async operations and Responders keep it alive after close, but a
// closed connection holds no socket or timer, so it may outlive the reactor.
//
// Reading: small frames are cut out of a fixed read buffer (several per
// recv); a frame larger than that buffer is read straight into its own
// allocation. The read buffer exists only while bytes are buffered: a
// connection with nothing to read waits for readability without one, so
// idle connections cost little memory. Answers are queued in per-request slots; consecutive ready
// ones move, in order, to the SendQueue, which writes them without blocking
// (gathered memory, sendfile for file regions) and waits for writability
// when the socket is full.
//
// Throttling (KIP-219): an answer with Response::mute_ms mutes the
// connection: no further frame is taken off the socket or the read buffer
// until that time has passed (a timer resumes reading).
//
// Timing (net/response.h ResponseTiming): each read is stamped, a frame
// carries the stamp of the read that completed it, handle()'s return and the
// Responder's call are stamped, and the SendQueue stamps the last byte
// written; the handler gets them all in on_answered.
//
// TLS (a listener with ListenAddress::tls; connection_tls.cc): the handshake runs first, within
// connections.max.idle.ms (bytes of an unfinished handshake are no
// activity); then the handler's on_connect sees the peer certificate's
// subject, frames are read through the TlsStream, and answers leave through
// it (or through the kernel, with kTLS). A failed handshake closes the
// connection with a rate-limited warning naming the peer and the reason.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <asio/buffer.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <spdlog/spdlog.h>

#include "net/reactor.h"
#include "net/request_handler.h"
#include "net/response.h"
#include "net/send_queue.h"
#include "net/server.h"
#include "net/tls_stream.h"
#include "util/bytes.h"
#include "util/clock.h"
#include "util/frame_bytes.h"
#include "util/log_rate_limiter.h"

namespace spool::net {

// kReadyAuthenticated becomes kReady once it lifts the frame bound;
// kReadyThenClose becomes kClose once its answer is queued for writing.
enum class SlotState : uint8_t { kPending, kReady, kReadyAuthenticated, kReadyThenClose, kNoResponse, kClose, kAbandoned };

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Reactor& reactor, asio::ip::tcp::socket socket, uint64_t id, uint32_t listener,
             const ServerOptions& options, RequestHandler& handler,
             ConnectionQuotas& quotas, std::string admitted_ip, LogRateLimiter& reject_log);

  // Registers with the reactor and starts reading. Reactor thread.
  void start();
  // Closes now (pending answers dropped). Reactor thread; idempotent. A
  // close at warn or above is about rejected input: its line is rate-limited
  // per peer address (net/reject_log.h).
  void close(std::string_view reason, spdlog::level::level_enum level);

  // Resolves slot seq. Any thread; a no-op once closed.
  void complete_from_any_thread(uint64_t seq, SlotState state, Response data, std::string reason);
  bool closed() const { return closed_.load(std::memory_order_acquire); }
  asio::any_io_executor executor() const { return executor_; }
  const ConnectionInfo& info() const { return info_; }

 private:
  // Big enough for the usual small requests (metadata, fetch, heartbeats,
  // modest produce batches) to arrive several per recv; larger frames get
  // their own buffer, so this bounds per-connection memory, not the frame size.
  static constexpr size_t kReadBufferSize = 16 * 1024;

  struct Slot {
    SlotState state = SlotState::kPending;
    Response data;
    std::string reason;
    int64_t pooled = 0;  // bytes reserved in options_.request_pool until answered
    int64_t handled_ns = 0;  // ResponseTiming's stamp taken before the answer (received_ns: ResponseSlot)
  };

  uint64_t inflight() const { return next_seq_ - done_seq_; }
  // After accept (and the TLS handshake): on_connect, then reading.
  void begin_serving();
  void continue_handshake();
  void after_handshake();
  void tls_read_some();
  void tls_read_large();
  // Waits until the socket is readable (kWantRead) or writable, then runs fn;
  // an error ends reading as on_read_error(ec, mid_frame) does.
  template <typename Fn>
  void tls_wait(TlsStream::Io want, bool mid_frame, Fn fn);
  void process_input();
  void read_some();
  void on_readable(const std::error_code& ec);
  void on_read_some(const std::error_code& ec, size_t n);
  void read_large();
  void on_read_large(const std::error_code& ec, size_t n);
  void on_read_error(const std::error_code& ec, bool mid_frame);
  void dispatch(FrameBytes frame);
  void complete(uint64_t seq, SlotState state, Response data, std::string reason);
  // RequestHandler::on_answered, guarded (reactor thread).
  void report_answered(const ResponseTiming& timing);
  void try_write();
  void on_writable(const std::error_code& ec);
  void after_progress();
  // queued.max.request.bytes (net/backpressure.h): false = parked until
  // the pool has room again (reading resumes by itself).
  bool reserve_frame(int32_t size);
  void release_pooled(int64_t bytes);
  // True (and a timer set to resume reading) while a throttle mutes reading.
  bool muted();
  void arm_idle_timer(int64_t deadline_ms);  // on clock_'s monotonic scale
  void on_idle_timer(const std::error_code& ec);

  Reactor& reactor_;  // used only while open
  asio::io_context::executor_type executor_;
  std::shared_ptr<PostGate> gate_;
  std::optional<asio::ip::tcp::socket> socket_;
  std::optional<asio::steady_timer> idle_timer_;
  std::optional<asio::steady_timer> mute_timer_;  // made at the first throttle
  std::unique_ptr<TlsStream> tls_;  // set on a TLS listener
  ConnectionInfo info_;
  const ServerOptions& options_;
  RequestHandler& handler_;
  ConnectionQuotas& quotas_;
  const std::string admitted_ip_;  // what quotas_ counted it under
  LogRateLimiter& reject_log_;
  std::string peer_address_;  // the peer's IP alone: the key of reject_log_
  std::atomic<bool> closed_{false};
  // The largest frame read now: the listener's pre-authentication bound
  // until an answer lifts it, else options_.max_request_bytes.
  int32_t frame_limit_ = 0;

  // Read side.
  FrameBytes rbuf_;  // kReadBufferSize while bytes are buffered or awaited, else empty
  size_t rpos_ = 0;
  size_t rend_ = 0;
  int64_t read_ns_ = 0;  // steady_clock_ns() of the last read: received_ns of frames cut from it
  FrameBytes large_frame_;
  size_t large_have_ = 0;
  bool paused_ = false;   // not reading because inflight() hit the limit
  bool pool_parked_ = false;  // not reading until the request pool has room
  int64_t frame_pooled_ = 0;  // reserved for the frame being read, not yet dispatched
  bool peer_eof_ = false; // peer finished sending; close once answers are out
  int64_t mute_until_ = 0;     // clock_ ms until which reading is muted (KIP-219); 0 = not muted
  bool mute_waiting_ = false;  // mute_timer_ armed: it calls process_input

  // Answer side: slots_[i] answers request head_seq_ + i.
  std::deque<Slot> slots_;
  uint64_t head_seq_ = 0;  // first request not yet taken off for writing
  uint64_t next_seq_ = 0;  // sequence number of the next request read
  uint64_t done_seq_ = 0;  // requests fully answered (written or no_response)
  bool writing_ = false;   // waiting for the socket to become writable
  SendQueue sendq_;

  const std::shared_ptr<Clock> clock_;  // options_.clock or the real clock
  int64_t last_activity_ = 0;           // clock_->monotonic_ms() of the last read or write
};

namespace detail {

// Shared state of the copies of one Responder.
class ResponseSlot {
 public:
  ResponseSlot(std::shared_ptr<Connection> conn, uint64_t seq, int64_t received_ns)
      : conn_(std::move(conn)), seq_(seq), received_ns_(received_ns) {}
  ~ResponseSlot();
  ResponseSlot(const ResponseSlot&) = delete;
  ResponseSlot& operator=(const ResponseSlot&) = delete;

  // First call wins; later calls log a warning and are ignored.
  void resolve(SlotState state, Response data, std::string reason);
  asio::any_io_executor executor() const { return conn_->executor(); }
  int64_t received_ns() const { return received_ns_; }

 private:
  std::shared_ptr<Connection> conn_;
  uint64_t seq_;
  int64_t received_ns_;
  std::atomic<bool> used_{false};
};

}  // namespace detail
}  // namespace spool::net
