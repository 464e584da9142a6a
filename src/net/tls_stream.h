// TlsStream: one connection's TLS session over its non-blocking socket
// (OpenSSL reads and writes the file descriptor itself).
//
// Every call does what it can without blocking and says what it waits for:
// kWantRead / kWantWrite mean "call again, with the same arguments, once the
// socket is readable / writable" (OpenSSL requires a write to be repeated
// with the same bytes; SendQueue keeps them in place until they are taken).
// After the handshake, kernel_send() tells whether the kernel encrypts
// (kTLS): then plain send/sendmsg/sendfile on the socket produce TLS
// records, and fetch answers keep their zero-copy path.
//
// Threading: the owning connection's reactor thread only. Lifetime: frees the
// SSL (not the socket) on destruction. Failure: kError with a reason
// (error()); kClosed when the peer ended the session.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <openssl/ssl.h>

#include "security/tls_context.h"

namespace spool::net {

class TlsStream {
 public:
  enum class Io { kDone, kWantRead, kWantWrite, kClosed, kError };
  struct Result {
    Io io = Io::kDone;
    size_t n = 0;  // bytes read or written when kDone
  };

  // The context's side of a connection on `fd` (a client checks `host`
  // when the context verifies host names); ok() is false when OpenSSL
  // could not make the session.
  TlsStream(const security::TlsContext& context, int fd, const std::string& host = "");
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  bool ok() const { return ssl_ != nullptr; }
  // Advances the handshake; kDone once it completed, kClosed when the peer
  // left before it did (a port probe), kError when it failed.
  Io handshake();
  // Up to n decrypted bytes.
  Result read(uint8_t* data, size_t n);
  // Some of the n bytes (at least one record's worth when kDone).
  Result write(const uint8_t* data, size_t n);
  // Decrypted bytes are buffered inside OpenSSL: read() returns them
  // without the socket becoming readable.
  bool has_pending() const;
  bool kernel_send() const { return kernel_send_; }
  // Sends close_notify if the socket takes it now; never waits.
  void shutdown();

  const std::string& error() const { return error_; }
  // After the handshake: the protocol and cipher, e.g. "TLSv1.3 TLS_AES_256_GCM_SHA384".
  std::string description() const;
  SSL* native() const { return ssl_; }

 private:
  Io failed(int ret, const char* what);

  SSL* ssl_ = nullptr;
  bool kernel_send_ = false;
  std::string error_;
};

}  // namespace spool::net
