// HttpConnection: one accepted admin-listener connection (http_server.h has
// the contract: bounds, methods, keep-alive). Internal to http/.
//
// Owned by shared_ptr from its own pending asio operations; runs only on the
// server's thread. `on_close` is called once, when it closes. With TLS the
// socket is non-blocking and net::TlsStream reads and writes it, waiting for
// readiness with async_wait; reads and writes never overlap but for an
// error answer sent while a read waits (after the handshake only).
#pragma once

#include <http_parser.h>

#include <asio.hpp>
#include <functional>
#include <memory>
#include <string>

#include "http/http_server.h"
#include "net/tls_stream.h"

namespace spool::http {

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(asio::ip::tcp::socket socket, const HttpServerOptions& options, const HttpHandler& handler,
                 std::function<void()> on_close);
  void start();
  void close();

 private:
  friend struct ParserCallbacks;

  void read_more();
  void arm_timer(int64_t ms, int status_on_expiry);
  void on_bytes(size_t n);
  // Parses what is buffered; answers a completed request.
  void parse();
  void serve();
  void fail(int status, const std::string& why);
  void write(const HttpResponse& resp, bool head, bool keep_alive);
  void reset_request();
  void after_write(bool ok);
  // TLS: the handshake then a read into chunk_; the rest of out_.
  void tls_read();
  void tls_send();
  // Runs `then` once the socket is ready as `io` asks (kWantRead/kWantWrite).
  void wait_for(net::TlsStream::Io io, void (HttpConnection::*then)());

  asio::ip::tcp::socket socket_;
  asio::steady_timer timer_;
  const HttpServerOptions& options_;
  const HttpHandler& handler_;
  std::function<void()> on_close_;
  std::string peer_;

  http_parser parser_{};
  std::string buf_;          // received, not yet parsed
  char chunk_[4096];
  size_t header_bytes_ = 0;  // of the request being read
  bool in_value_ = false;
  std::string field_, value_, url_;
  HttpRequest req_;
  bool complete_ = false;
  bool has_body_ = false;
  bool writing_ = false;
  bool reading_ = false;  // one read outstanding at most
  bool closed_ = false;
  std::string out_;
  size_t out_sent_ = 0;  // TLS: of out_
  bool keep_alive_ = false;
  std::unique_ptr<net::TlsStream> tls_;
  bool handshaken_ = false;
};

}  // namespace spool::http
