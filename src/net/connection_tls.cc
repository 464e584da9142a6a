// Connection's TLS half (net/connection.h): the handshake before the
// handler sees the connection, and reads through the TlsStream. Answers
// leave through SendQueue (net/send_queue.h), which knows the TlsStream.
#include <sys/socket.h>

#include <asio/post.hpp>

#include "net/connection.h"

namespace spool::net {

template <typename Fn>
void Connection::tls_wait(TlsStream::Io want, bool mid_frame, Fn fn) {
  const auto what = want == TlsStream::Io::kWantRead ? asio::ip::tcp::socket::wait_read : asio::ip::tcp::socket::wait_write;
  socket_->async_wait(what, [self = shared_from_this(), mid_frame, fn](const std::error_code& ec) {
    if (self->closed()) return;
    if (ec) {
      self->on_read_error(ec, mid_frame);
      return;
    }
    fn(*self);
  });
}

void Connection::continue_handshake() {
  const TlsStream::Io io = tls_->handshake();
  switch (io) {
    case TlsStream::Io::kDone:
      after_handshake();
      return;
    case TlsStream::Io::kWantRead:
    case TlsStream::Io::kWantWrite:
      tls_wait(io, false, [](Connection& c) { c.continue_handshake(); });
      return;
    case TlsStream::Io::kClosed:
      close(tls_->error(), spdlog::level::debug);
      return;
    case TlsStream::Io::kError: {
      // OpenSSL has written its alert. Unread bytes (the client's next
      // flight) would turn the close into a reset, which can discard the
      // alert before the client reads it: take them first.
      uint8_t sink[4096];
      for (int i = 0; i < 16 && ::recv(socket_->native_handle(), sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
      }
      close(tls_->error(), spdlog::level::warn);
      return;
    }
  }
}

void Connection::after_handshake() {
  info_.tls = true;
  info_.tls_peer_dn = security::peer_distinguished_name(tls_->native());
  sendq_.use_tls(tls_.get());
  last_activity_ = clock_->monotonic_ms();
  static std::atomic<bool> logged{false};
  if (!logged.exchange(true)) {
    if (tls_->kernel_send()) {
      spdlog::info("net: kernel TLS is on: the kernel encrypts answers, and fetches keep sendfile");
    } else {
      spdlog::info("net: kernel TLS is not available (no 'tls' module, or a cipher it lacks): answers are "
                   "encrypted in user space, and fetches copy file bytes instead of sendfile");
    }
  }
  spdlog::debug("net: connection {} from {}: {}{}", info_.id, info_.peer, tls_->description(),
                info_.tls_peer_dn.empty() ? std::string() : ", client " + info_.tls_peer_dn);
  begin_serving();
}

void Connection::tls_read_some() {
  if (rbuf_.size() < kReadBufferSize) rbuf_.resize(kReadBufferSize);
  const TlsStream::Result r = tls_->read(rbuf_.data() + rend_, rbuf_.size() - rend_);
  switch (r.io) {
    case TlsStream::Io::kDone:
      // Posted, not called: a peer that keeps sending must not deepen the stack.
      asio::post(executor_, [self = shared_from_this(), n = r.n] { self->on_read_some({}, n); });
      return;
    case TlsStream::Io::kWantRead:
    case TlsStream::Io::kWantWrite:
      tls_wait(r.io, rend_ > rpos_, [](Connection& c) { c.tls_read_some(); });
      return;
    case TlsStream::Io::kClosed:
      on_read_error(asio::error::eof, rend_ > rpos_);
      return;
    case TlsStream::Io::kError:
      close(tls_->error(), spdlog::level::debug);
      return;
  }
}

void Connection::tls_read_large() {
  while (large_have_ < large_frame_.size()) {
    const TlsStream::Result r = tls_->read(large_frame_.data() + large_have_, large_frame_.size() - large_have_);
    switch (r.io) {
      case TlsStream::Io::kDone:
        large_have_ += r.n;
        continue;
      case TlsStream::Io::kWantRead:
      case TlsStream::Io::kWantWrite:
        tls_wait(r.io, true, [](Connection& c) { c.tls_read_large(); });
        return;
      case TlsStream::Io::kClosed:
        on_read_error(asio::error::eof, true);
        return;
      case TlsStream::Io::kError:
        close(tls_->error(), spdlog::level::debug);
        return;
    }
  }
  asio::post(executor_, [self = shared_from_this()] { self->on_read_large({}, 0); });
}

}  // namespace spool::net
