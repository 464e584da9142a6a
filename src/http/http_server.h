// HttpServer: a small, bounded HTTP/1.1 server for the broker's admin
// listener (admin.listener: /metrics, /v1/*). Not for data traffic.
//
// Contract:
//  * One listening socket, served by one thread of its own (its own
//    asio::io_context), so a slow scrape never holds a Kafka reactor.
//  * Requests are parsed by Debian's http-parser (libhttp-parser, the
//    parser Node.js used before llhttp). Only GET and HEAD are served; any
//    other method is answered 405 and the connection closes. A request with
//    a body is answered 413 and closed.
//  * Bounds, each answered and then closed: the request line plus headers
//    above `max_header_bytes` (431), a request not complete within
//    `header_timeout_ms` of its first byte or of the connection (408, the
//    slowloris defence), a malformed request (400), a path that is not
//    canonical ("..", ".", "//", backslash, NUL, percent-encoded dots or
//    slashes: 400). A connection beyond `max_connections` is closed at once.
//    Memory per connection is bounded by max_header_bytes plus one answer.
//  * TLS when `tls` is set (a server-side security::TlsContext: the same
//    OpenSSL settings as the Kafka TLS listeners, client certificates
//    when it asks for them). A handshake that fails, or that is not done
//    within header_timeout_ms, closes the connection.
//  * Keep-alive as HTTP/1.1 says (Connection: close honoured); requests on
//    one connection are answered one at a time, in order.
//  * The handler runs on the server's thread; it must not block for long.
//    An exception from it is answered 500 and logged.
//
// Threading: start/stop/port from any thread but the server's own. stop()
// is idempotent and run by the destructor. Failure: start() reports a bind
// failure as a Status; everything after that affects one connection only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "util/status.h"

namespace spool::security {
class TlsContext;
}

namespace spool::http {

struct HttpRequest {
  std::string method;  // "GET" or "HEAD"
  std::string path;    // the URL's path, canonical (see above), not percent-decoded
  std::string query;   // after '?', raw; "" when none
  std::map<std::string, std::string> headers;  // names lower-cased; a repeated header keeps the last value
  std::string peer;    // "ip:port"

  // The value of query parameter `name` (percent-decoded), or "" when absent.
  std::string param(std::string_view name) const;
  const std::string* header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? nullptr : &it->second;
  }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::map<std::string, std::string> headers;  // extra headers (e.g. WWW-Authenticate)

  static HttpResponse text(int status, std::string body);
  static HttpResponse json(int status, std::string body);
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9644;  // 0 = ephemeral
  int32_t max_header_bytes = 16384;
  int32_t max_connections = 64;
  int64_t header_timeout_ms = 10000;
  int64_t idle_timeout_ms = 60000;  // keep-alive connections with no request
  std::shared_ptr<const security::TlsContext> tls;  // null: plain HTTP
};

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts the thread.
  Status start();
  void stop();
  uint16_t port() const;  // the bound port (after start)
  size_t connection_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The reason phrase of a status code ("Not Found").
const char* reason_phrase(int status);

}  // namespace spool::http
