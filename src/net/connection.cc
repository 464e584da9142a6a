#include "net/connection.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <utility>

#include <asio/read.hpp>

#include "net/reject_log.h"

namespace spool::net {

namespace {

std::string format_endpoint(const asio::ip::tcp::endpoint& ep) {
  const auto addr = ep.address();
  if (addr.is_v6()) return "[" + addr.to_string() + "]:" + std::to_string(ep.port());
  return addr.to_string() + ":" + std::to_string(ep.port());
}

int32_t load_be32(const uint8_t* p) {
  return static_cast<int32_t>((uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
                              (uint32_t{p[2]} << 8) | uint32_t{p[3]});
}

}  // namespace

Connection::Connection(Reactor& reactor, asio::ip::tcp::socket socket, uint64_t id, uint32_t listener,
                       const ServerOptions& options, RequestHandler& handler,
                       ConnectionQuotas& quotas, std::string admitted_ip, LogRateLimiter& reject_log)
    : reactor_(reactor),
      executor_(reactor.ctx.get_executor()),
      gate_(reactor.gate),
      socket_(std::move(socket)),
      options_(options),
      handler_(handler),
      quotas_(quotas),
      admitted_ip_(std::move(admitted_ip)),
      reject_log_(reject_log),
      sendq_(options.sendfile),
      clock_(clock_or_system(options.clock)) {
  sendq_.on_sent([this](const ResponseTiming& timing) { report_answered(timing); });
  info_.id = id;
  info_.listener = listener;
  info_.peer = "unknown";
  peer_address_ = "unknown";
  frame_limit_ = options.max_request_bytes;
  const int32_t pre_auth = listener < options.listeners.size()
                               ? options.listeners[listener].max_unauthenticated_request_bytes : 0;
  if (pre_auth > 0 && pre_auth < frame_limit_) frame_limit_ = pre_auth;
}

void Connection::start() {
  std::error_code ec;
  // Kafka answers are small and latency-bound; Nagle would hold them back.
  socket_->set_option(asio::ip::tcp::no_delay(true), ec);
  // Answers are written with plain non-blocking syscalls (sendmsg, sendfile)
  // by SendQueue; asio only tells when the socket is writable again.
  socket_->native_non_blocking(true, ec);
  if (ec) {
    reactor_.conns.emplace(info_.id, shared_from_this());
    close("cannot make the socket non-blocking: " + ec.message(), spdlog::level::warn);
    return;
  }
  auto ep = socket_->remote_endpoint(ec);
  if (!ec) {
    info_.peer = format_endpoint(ep);
    peer_address_ = ep.address().to_string();
  }
  reactor_.conns.emplace(info_.id, shared_from_this());
  spdlog::debug("net: connection {} from {} accepted", info_.id, info_.peer);
  last_activity_ = clock_->monotonic_ms();
  if (options_.idle_timeout_ms > 0) {
    idle_timer_.emplace(executor_);
    arm_idle_timer(last_activity_ + options_.idle_timeout_ms);
  }
  const auto& context = info_.listener < options_.listeners.size() ? options_.listeners[info_.listener].tls : nullptr;
  if (context) {
    tls_ = std::make_unique<TlsStream>(*context, socket_->native_handle());
    if (!tls_->ok()) {
      close(tls_->error(), spdlog::level::err);
      return;
    }
    continue_handshake();
    return;
  }
  begin_serving();
}

void Connection::begin_serving() {
  try {
    info_.session = handler_.on_connect(info_);
  } catch (const std::exception& e) {
    close(std::string("connection handler threw: ") + e.what(), spdlog::level::err);
    return;
  }
  process_input();
}

void Connection::close(std::string_view reason, spdlog::level::level_enum level) {
  if (closed()) return;
  auto self = shared_from_this();  // the reactor map may hold the last reference
  closed_.store(true, std::memory_order_release);
  if (level >= spdlog::level::warn) {
    log_rejected(reject_log_, peer_address_, level, "net: closing connection {} from {}: {}", info_.id,
                 info_.peer, reason);
  } else {
    spdlog::log(level, "net: closing connection {} from {}: {}", info_.id, info_.peer, reason);
  }
  // Destroying the timer and socket cancels their pending operations; the
  // handlers still run (operation_aborted) but see closed_ and return. Not
  // keeping them lets a closed connection outlive its io_context safely.
  idle_timer_.reset();
  mute_timer_.reset();
  // close_notify only between records: never in the middle of a pending write.
  if (tls_ && sendq_.empty()) tls_->shutdown();
  std::error_code ec;
  socket_->close(ec);
  socket_.reset();
  sendq_.use_tls(nullptr);
  tls_.reset();
  int64_t pooled = frame_pooled_;
  for (const Slot& s : slots_) pooled += s.pooled;
  frame_pooled_ = 0;
  slots_.clear();
  release_pooled(pooled);
  reactor_.conns.erase(info_.id);
  quotas_.release(admitted_ip_, info_.listener);
  try {
    handler_.on_disconnect(info_);
  } catch (const std::exception& e) {
    spdlog::error("net: on_disconnect for connection {} threw: {}", info_.id, e.what());
  } catch (...) {
    spdlog::error("net: on_disconnect for connection {} threw", info_.id);
  }
}

// ---------------------------------------------------------------- reading

void Connection::process_input() {
  const uint64_t max_inflight =
      static_cast<uint64_t>(std::max(1, options_.max_inflight_per_connection));
  while (!closed()) {
    if (muted()) return;
    if (inflight() >= max_inflight) {
      paused_ = true;  // after_progress() resumes once answers go out
      return;
    }
    const size_t avail = rend_ - rpos_;
    if (avail >= 4) {
      const uint8_t* p = rbuf_.data() + rpos_;
      const int32_t size = load_be32(p);
      // Checked before any allocation: a hostile size must not cost memory.
      if (size <= 0 || size > frame_limit_) {
        close("frame size " + std::to_string(size) + " outside 1.." + std::to_string(frame_limit_) +
                  (frame_limit_ == options_.max_request_bytes
                       ? " (socket.request.max.bytes)"
                       : " before authentication (sasl.server.max.receive.size)"),
              spdlog::level::warn);
        return;
      }
      if (!reserve_frame(size)) return;
      const size_t need = 4 + static_cast<size_t>(size);
      if (avail >= need) {
        FrameBytes frame(p + 4, p + need);
        rpos_ += need;
        dispatch(std::move(frame));
        continue;
      }
      if (need > kReadBufferSize) {
        large_frame_ = FrameBytes(static_cast<size_t>(size));
        large_have_ = avail - 4;
        std::memcpy(large_frame_.data(), p + 4, large_have_);
        rpos_ = rend_ = 0;
        read_large();
        return;
      }
    }
    if (rpos_ == rend_) {
      rpos_ = rend_ = 0;
    } else if (rpos_ > 0) {
      std::memmove(rbuf_.data(), rbuf_.data() + rpos_, avail);
      rpos_ = 0;
      rend_ = avail;
    }
    read_some();
    return;
  }
}

void Connection::read_some() {
  if (rend_ == 0 && !(tls_ && tls_->has_pending())) {
    // Nothing buffered: wait for bytes without holding a read buffer, so an
    // idle connection costs no buffer (10,000 idle clients would hold
    // 160 MB of them).
    rbuf_ = FrameBytes();
    socket_->async_wait(asio::ip::tcp::socket::wait_read,
                        [self = shared_from_this()](const std::error_code& ec) { self->on_readable(ec); });
    return;
  }
  if (tls_) {
    tls_read_some();
    return;
  }
  socket_->async_read_some(
      asio::buffer(rbuf_.data() + rend_, rbuf_.size() - rend_),
      [self = shared_from_this()](const std::error_code& ec, size_t n) { self->on_read_some(ec, n); });
}

void Connection::on_readable(const std::error_code& ec) {
  if (closed()) return;
  if (ec) {
    on_read_error(ec, false);
    return;
  }
  rbuf_.resize(kReadBufferSize);  // uninitialized: the read overwrites it
  if (tls_) {
    tls_read_some();
    return;
  }
  socket_->async_read_some(
      asio::buffer(rbuf_.data(), rbuf_.size()),
      [self = shared_from_this()](const std::error_code& ec, size_t n) { self->on_read_some(ec, n); });
}

void Connection::on_read_some(const std::error_code& ec, size_t n) {
  if (closed()) return;
  if (ec) {
    on_read_error(ec, rend_ > rpos_);
    return;
  }
  rend_ += n;
  read_ns_ = steady_clock_ns();
  last_activity_ = clock_->monotonic_ms();
  process_input();
}

void Connection::read_large() {
  if (tls_) {
    tls_read_large();
    return;
  }
  asio::async_read(
      *socket_, asio::buffer(large_frame_.data() + large_have_, large_frame_.size() - large_have_),
      [self = shared_from_this()](const std::error_code& ec, size_t n) { self->on_read_large(ec, n); });
}

void Connection::on_read_large(const std::error_code& ec, size_t n) {
  if (closed()) return;
  if (ec) {
    on_read_error(ec, true);
    return;
  }
  read_ns_ = steady_clock_ns();
  last_activity_ = clock_->monotonic_ms();
  FrameBytes frame = std::move(large_frame_);
  large_frame_ = FrameBytes();
  large_have_ = 0;
  dispatch(std::move(frame));
  process_input();
}

void Connection::on_read_error(const std::error_code& ec, bool mid_frame) {
  if (ec == asio::error::operation_aborted) return;
  if (ec == asio::error::eof) {
    if (mid_frame) {
      close("peer closed in the middle of a frame", spdlog::level::debug);
    } else if (inflight() > 0) {
      // Half-close: the peer may still read; answer what it asked first.
      peer_eof_ = true;
    } else {
      close("peer closed", spdlog::level::debug);
    }
    return;
  }
  close("read failed: " + ec.message(), spdlog::level::debug);
}

void Connection::dispatch(FrameBytes frame) {
  const uint64_t seq = next_seq_++;
  slots_.emplace_back();
  slots_.back().pooled = frame_pooled_;
  frame_pooled_ = 0;
  Responder responder(std::make_shared<detail::ResponseSlot>(shared_from_this(), seq, read_ns_));
  try {
    handler_.handle(info_, std::move(frame), std::move(responder));
  } catch (const std::exception& e) {
    close(std::string("request handler threw: ") + e.what(), spdlog::level::err);
  } catch (...) {
    close("request handler threw", spdlog::level::err);
  }
  // complete() is always posted, so the slot is still pending here unless
  // handle() closed the connection.
  if (!closed() && seq - head_seq_ < slots_.size()) slots_[seq - head_seq_].handled_ns = steady_clock_ns();
}

// ---------------------------------------------------------------- answering

void Connection::complete_from_any_thread(uint64_t seq, SlotState state, Response data,
                                          std::string reason) {
  if (closed()) return;
  data.timing.ready_ns = steady_clock_ns();
  // Always posted, even from the reactor thread: answers given synchronously
  // inside handle() then pile up while the read buffer is drained and leave
  // in one gathered write.
  gate_->post([self = shared_from_this(), seq, state, data = std::move(data),
               reason = std::move(reason)]() mutable {
    self->complete(seq, state, std::move(data), std::move(reason));
  });
}

void Connection::complete(uint64_t seq, SlotState state, Response data, std::string reason) {
  if (closed()) return;
  if (seq < head_seq_ || seq - head_seq_ >= slots_.size()) return;
  Slot& slot = slots_[seq - head_seq_];
  if (slot.state != SlotState::kPending) return;
  // Handled: the request's bytes leave the pool now, as Kafka releases a
  // request's buffer before its response is sent.
  release_pooled(std::exchange(slot.pooled, 0));
  if (data.mute_ms > 0) mute_until_ = std::max(mute_until_, clock_->monotonic_ms() + data.mute_ms);
  if (state == SlotState::kReadyAuthenticated) {
    // Before the answer can reach the client, so before its next frame.
    frame_limit_ = options_.max_request_bytes;
    state = SlotState::kReady;
  }
  data.timing.handled_ns = slot.handled_ns;
  slot.state = state;
  slot.data = std::move(data);
  slot.reason = std::move(reason);
  try_write();
  after_progress();
}

void Connection::report_answered(const ResponseTiming& timing) {
  try {
    handler_.on_answered(info_, timing);
  } catch (const std::exception& e) {
    spdlog::error("net: on_answered for connection {} threw: {}", info_.id, e.what());
  } catch (...) {
    spdlog::error("net: on_answered for connection {} threw", info_.id);
  }
}

void Connection::try_write() {
  for (;;) {
    if (writing_ || closed()) return;
    while (!slots_.empty()) {
      Slot& slot = slots_.front();
      if (slot.state == SlotState::kPending) break;
      if (slot.state == SlotState::kClose || slot.state == SlotState::kAbandoned) {
        if (!sendq_.empty()) break;  // flush the earlier answers first
        if (slot.state == SlotState::kAbandoned) {
          close("request handler dropped a request without answering it", spdlog::level::err);
        } else {
          close("closed by request handler: " + slot.reason, spdlog::level::warn);
        }
        return;
      }
      if (slot.state == SlotState::kReady || slot.state == SlotState::kReadyThenClose) {
        if (slot.data.size() > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
          close("response larger than 2 GiB", spdlog::level::err);
          return;
        }
        sendq_.push(std::move(slot.data));
        if (slot.state == SlotState::kReadyThenClose) {
          // Stays at the front as a close, done once its answer is written.
          slot.state = SlotState::kClose;
          slot.data = Response();
          continue;
        }
      } else {
        ++done_seq_;  // no_response: the slot is settled, nothing to write
        slot.data.timing.sent_ns = steady_clock_ns();
        report_answered(slot.data.timing);
      }
      slots_.pop_front();
      ++head_seq_;
    }
    if (sendq_.empty()) return;

    const SendQueue::Flush f = sendq_.flush(socket_->native_handle());
    const uint64_t written = sendq_.take_completed();
    done_seq_ += written;
    if (written > 0) last_activity_ = clock_->monotonic_ms();
    if (f == SendQueue::Flush::kError) {
      close(sendq_.error(), spdlog::level::debug);
      return;
    }
    if (f == SendQueue::Flush::kWouldBlock) {
      writing_ = true;
      socket_->async_wait(asio::ip::tcp::socket::wait_write,
                          [self = shared_from_this()](const std::error_code& ec) { self->on_writable(ec); });
      return;
    }
    // Drained: a close slot may have waited behind the answers just written.
  }
}

void Connection::on_writable(const std::error_code& ec) {
  writing_ = false;
  if (closed()) return;
  if (ec) {
    close("write failed: " + ec.message(), spdlog::level::debug);
    return;
  }
  try_write();
  after_progress();
}

void Connection::after_progress() {
  if (closed()) return;
  if (peer_eof_) {
    if (inflight() == 0) close("peer closed", spdlog::level::debug);
    return;
  }
  if (paused_ && inflight() < static_cast<uint64_t>(std::max(1, options_.max_inflight_per_connection))) {
    paused_ = false;
    process_input();
  }
}

// ---------------------------------------------------------------- throttling

bool Connection::muted() {
  if (mute_until_ == 0) return false;
  const int64_t now = clock_->monotonic_ms();
  if (now >= mute_until_) {
    mute_until_ = 0;
    last_activity_ = now;  // the client was held, not idle
    return false;
  }
  if (mute_waiting_) return true;
  if (!mute_timer_) mute_timer_.emplace(executor_);
  mute_waiting_ = true;
  // At least 1 ms of real time, so a clock that stands still cannot spin.
  mute_timer_->expires_after(std::chrono::milliseconds(std::max<int64_t>(1, mute_until_ - now)));
  mute_timer_->async_wait([self = shared_from_this()](const std::error_code& ec) {
    self->mute_waiting_ = false;
    if (ec || self->closed()) return;
    self->process_input();
  });
  return true;
}

// ---------------------------------------------------------------- request pool

bool Connection::reserve_frame(int32_t size) {
  const auto& pool = options_.request_pool;
  if (!pool || frame_pooled_ > 0) return true;
  std::weak_ptr<Connection> weak = weak_from_this();
  auto gate = gate_;
  bool got = pool->reserve_or_wait(size, [weak, gate] {
    // Runs on whichever thread released memory: hop to our reactor.
    if (auto self = weak.lock()) {
      gate->post([self] {
        if (self->closed() || !self->pool_parked_) return;
        self->pool_parked_ = false;
        self->process_input();
      });
    }
  });
  if (!got) {
    pool_parked_ = true;
    return false;
  }
  frame_pooled_ = size;
  return true;
}

void Connection::release_pooled(int64_t bytes) {
  if (bytes > 0 && options_.request_pool) options_.request_pool->release(bytes);
}

// ---------------------------------------------------------------- idle timeout

void Connection::arm_idle_timer(int64_t deadline_ms) {
  // At least 1 ms of real time between checks, so a clock that stands still
  // (a test's ManualClock) cannot make the timer spin.
  idle_timer_->expires_after(std::chrono::milliseconds(std::max<int64_t>(1, deadline_ms - clock_->monotonic_ms())));
  idle_timer_->async_wait([self = shared_from_this()](const std::error_code& ec) { self->on_idle_timer(ec); });
}

void Connection::on_idle_timer(const std::error_code& ec) {
  if (closed() || ec) return;
  const int64_t now = clock_->monotonic_ms();
  const int64_t idle = options_.idle_timeout_ms;
  // A connection waiting for its answers (a long-poll fetch) is not idle.
  if (inflight() > 0) {
    arm_idle_timer(now + idle);
    return;
  }
  if (now - last_activity_ >= idle) {
    close("idle for " + std::to_string(options_.idle_timeout_ms) + " ms (connections.max.idle.ms)",
          spdlog::level::debug);
    return;
  }
  arm_idle_timer(last_activity_ + idle);
}

// ---------------------------------------------------------------- responder state

namespace detail {

ResponseSlot::~ResponseSlot() {
  if (!used_.load(std::memory_order_acquire)) {
    conn_->complete_from_any_thread(seq_, SlotState::kAbandoned, Response(), std::string());
  }
}

void ResponseSlot::resolve(SlotState state, Response data, std::string reason) {
  if (used_.exchange(true, std::memory_order_acq_rel)) {
    spdlog::warn("net: connection {}: request {} answered more than once; extra answer ignored",
                 conn_->info().id, seq_);
    return;
  }
  data.timing.received_ns = received_ns_;
  conn_->complete_from_any_thread(seq_, state, std::move(data), std::move(reason));
}

}  // namespace detail
}  // namespace spool::net
