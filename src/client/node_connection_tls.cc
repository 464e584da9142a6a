// NodeConnection's TLS (client/node_connection.h): after the TCP connect the
// TLS handshake runs, still under the connect timeout; then frames are
// written and read through the TlsStream on the non-blocking socket. A write
// OpenSSL did not take is retried with the same bytes (tls_out_), as it
// requires. A failed handshake, read or write closes the connection with
// OpenSSL's reason (the alert, or the certificate check's verdict), so the
// caller's error names the TLS failure rather than a socket reset.
#include <asio/post.hpp>
#include <spdlog/spdlog.h>

#include "client/node_connection.h"

namespace spool::client {

void NodeConnection::start_tls() {
  std::error_code ec;
  socket_.non_blocking(true, ec);
  tls_ = std::make_unique<net::TlsStream>(*options_.security->tls, socket_.native_handle(), node_.host);
  if (ec || !tls_->ok()) {
    close(network_error("TLS with " + describe() + " failed: " + (ec ? ec.message() : tls_->error())), true);
    return;
  }
  continue_tls_handshake();
}

void NodeConnection::continue_tls_handshake() {
  const net::TlsStream::Io io = tls_->handshake();
  if (io == net::TlsStream::Io::kDone) {
    spdlog::debug("client: TLS with {}: {}", describe(), tls_->description());
    after_connect();
    return;
  }
  if (io == net::TlsStream::Io::kWantRead || io == net::TlsStream::Io::kWantWrite) {
    const auto what = io == net::TlsStream::Io::kWantRead ? asio::ip::tcp::socket::wait_read
                                                          : asio::ip::tcp::socket::wait_write;
    socket_.async_wait(what, [self = shared_from_this(), gen = gen_](const std::error_code& ec) {
      if (gen != self->gen_) return;
      if (ec) {
        self->close(self->network_error("TLS handshake with " + self->describe() + " failed: " + ec.message()), true);
        return;
      }
      self->continue_tls_handshake();
    });
    return;
  }
  close(network_error("TLS handshake with " + describe() + " failed: " + tls_->error()), true);
}

void NodeConnection::tls_flush() {
  for (;;) {
    if (tls_out_off_ == tls_out_.size()) {
      tls_out_.clear();
      tls_out_off_ = 0;
      if (outq_.empty()) return;
      for (const Bytes& b : outq_) tls_out_.insert(tls_out_.end(), b.begin(), b.end());
      outq_.clear();
    }
    const net::TlsStream::Result r = tls_->write(tls_out_.data() + tls_out_off_, tls_out_.size() - tls_out_off_);
    if (r.io == net::TlsStream::Io::kDone) {
      tls_out_off_ += r.n;
      continue;
    }
    if (r.io == net::TlsStream::Io::kWantRead || r.io == net::TlsStream::Io::kWantWrite) {
      writing_ = true;
      const auto what = r.io == net::TlsStream::Io::kWantRead ? asio::ip::tcp::socket::wait_read
                                                              : asio::ip::tcp::socket::wait_write;
      socket_.async_wait(what, [self = shared_from_this(), gen = gen_](const std::error_code& ec) {
        if (gen != self->gen_) return;
        self->writing_ = false;
        if (ec) {
          self->close(self->network_error("connection to " + self->describe() + " lost: write failed: " + ec.message()),
                      true);
          return;
        }
        self->tls_flush();
      });
      return;
    }
    close(network_error("connection to " + describe() + " lost: TLS send failed: " + tls_error_detail()), true);
    return;
  }
}

std::string NodeConnection::tls_error_detail() const {
  // TlsStream says "TLS read failed: <why>" / "TLS write failed: <why>".
  const std::string& e = tls_->error();
  if (e.empty()) return "the peer closed the session";
  const size_t colon = e.find(": ");
  return colon == std::string::npos ? e : e.substr(colon + 2);
}

void NodeConnection::tls_read_exact(uint8_t* data, size_t n, size_t have, ReadDone done) {
  while (have < n) {
    const net::TlsStream::Result r = tls_->read(data + have, n - have);
    if (r.io == net::TlsStream::Io::kDone) {
      have += r.n;
      continue;
    }
    if (r.io == net::TlsStream::Io::kWantRead || r.io == net::TlsStream::Io::kWantWrite) {
      const auto what = r.io == net::TlsStream::Io::kWantRead ? asio::ip::tcp::socket::wait_read
                                                              : asio::ip::tcp::socket::wait_write;
      socket_.async_wait(what, [self = shared_from_this(), gen = gen_, data, n, have,
                                done = std::move(done)](const std::error_code& ec) mutable {
        if (gen != self->gen_) return;
        if (ec) {
          done(ec, 0);
          return;
        }
        self->tls_read_exact(data, n, have, std::move(done));
      });
      return;
    }
    // The reason is the TLS session's, not the socket's: an alert (the
    // broker refused our certificate after a TLS 1.3 handshake that looked
    // complete) or OpenSSL's error, worded as the CLI has always shown it.
    std::string why;
    if (r.io == net::TlsStream::Io::kError) {
      why = "TLS receive failed: " + tls_error_detail();
    } else if (state_ == State::kHandshake) {
      why = "the broker closed the TLS session before answering ApiVersions (did it refuse our certificate?)";
    } else {
      why = "closed by the peer";
    }
    asio::post(ctx_, [self = shared_from_this(), gen = gen_, why = std::move(why)]() {
      if (gen != self->gen_) return;
      self->close(self->network_error("connection to " + self->describe() + " lost: " + why), true);
    });
    return;
  }
  // Posted, not called: a peer that keeps sending must not deepen the stack.
  asio::post(ctx_, [done = std::move(done), n]() mutable { done({}, n); });
}

}  // namespace spool::client
