#include "net/tls_stream.h"

#include <openssl/err.h>

#include <cerrno>
#include <cstring>

namespace spool::net {

TlsStream::TlsStream(const security::TlsContext& context, int fd, const std::string& host) {
  ssl_ = context.side() == security::TlsContext::Side::kServer ? context.new_server_session()
                                                                : context.new_client_session(host);
  if (ssl_ == nullptr) {
    error_ = security::openssl_errors("cannot create a TLS session");
    return;
  }
  if (SSL_set_fd(ssl_, fd) != 1) {
    error_ = security::openssl_errors("cannot attach the TLS session to its socket");
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
}

TlsStream::~TlsStream() {
  if (ssl_ != nullptr) SSL_free(ssl_);
}

TlsStream::Io TlsStream::failed(int ret, const char* what) {
  const int err = SSL_get_error(ssl_, ret);
  switch (err) {
    case SSL_ERROR_WANT_READ:
      return Io::kWantRead;
    case SSL_ERROR_WANT_WRITE:
      return Io::kWantWrite;
    case SSL_ERROR_ZERO_RETURN:
      return Io::kClosed;
    case SSL_ERROR_SYSCALL: {
      const int e = errno;
      const std::string queued = security::openssl_errors("");
      if (!queued.empty()) {
        error_ = std::string(what) + ": " + queued;
      } else if (e == 0 || e == ECONNRESET || e == EPIPE) {
        // The peer went away without close_notify.
        error_ = std::string(what) + ": the peer closed the connection";
        return Io::kClosed;
      } else {
        error_ = std::string(what) + ": " + std::strerror(e);
      }
      return Io::kError;
    }
    default:
      error_ = std::string(what) + ": " + security::openssl_errors();
      return Io::kError;
  }
}

TlsStream::Io TlsStream::handshake() {
  ERR_clear_error();
  const int r = SSL_do_handshake(ssl_);
  if (r == 1) {
    kernel_send_ = BIO_get_ktls_send(SSL_get_wbio(ssl_)) != 0;
    return Io::kDone;
  }
  Io io = failed(r, "TLS handshake failed");
  if (io == Io::kClosed) error_ = "the peer closed the connection during the TLS handshake";
  if (io == Io::kError) {
    const long verify = SSL_get_verify_result(ssl_);
    if (verify != X509_V_OK) error_ += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
  }
  return io;
}

TlsStream::Result TlsStream::read(uint8_t* data, size_t n) {
  ERR_clear_error();
  size_t got = 0;
  const int r = SSL_read_ex(ssl_, data, n, &got);
  if (r == 1) return {Io::kDone, got};
  return {failed(r, "TLS read failed"), 0};
}

TlsStream::Result TlsStream::write(const uint8_t* data, size_t n) {
  ERR_clear_error();
  size_t put = 0;
  const int r = SSL_write_ex(ssl_, data, n, &put);
  if (r == 1) return {Io::kDone, put};
  return {failed(r, "TLS write failed"), 0};
}

bool TlsStream::has_pending() const { return SSL_has_pending(ssl_) == 1; }

void TlsStream::shutdown() {
  if (ssl_ == nullptr || !SSL_is_init_finished(ssl_)) return;
  ERR_clear_error();
  SSL_shutdown(ssl_);
  ERR_clear_error();
}

std::string TlsStream::description() const {
  return std::string(SSL_get_version(ssl_)) + " " + SSL_CIPHER_standard_name(SSL_get_current_cipher(ssl_));
}

}  // namespace spool::net
