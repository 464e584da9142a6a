#include "http/http_connection.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

namespace spool::http {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A path the router may compare byte for byte: absolute, no empty, "." or
// ".." segment, no backslash or control byte, and no percent-encoded dot,
// slash or backslash (which would decode into one of those).
bool canonical_path(const std::string& p) {
  if (p.empty() || p[0] != '/') return false;
  for (unsigned char c : p)
    if (c < 0x20 || c == 0x7f || c == '\\') return false;
  const std::string l = lower(p);
  for (const char* bad : {"%2e", "%2f", "%5c", "%00"})
    if (l.find(bad) != std::string::npos) return false;
  size_t i = 1;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    const std::string_view seg(p.data() + i, j - i);
    if (seg == "." || seg == "..") return false;
    if (seg.empty() && j != p.size()) return false;  // "//"
    i = j + 1;
  }
  return true;
}

}  // namespace

// http_parser's C callbacks, forwarding to the connection (parser.data).
struct ParserCallbacks {
  static HttpConnection& of(http_parser* p) { return *static_cast<HttpConnection*>(p->data); }
  static int on_message_begin(http_parser* p) {
    of(p).reset_request();
    return 0;
  }
  static int on_url(http_parser* p, const char* at, size_t n) {
    of(p).url_.append(at, n);
    return 0;
  }
  static int on_header_field(http_parser* p, const char* at, size_t n) {
    auto& c = of(p);
    if (c.in_value_) {
      c.req_.headers[lower(c.field_)] = c.value_;
      c.field_.clear();
      c.value_.clear();
      c.in_value_ = false;
    }
    c.field_.append(at, n);
    return 0;
  }
  static int on_header_value(http_parser* p, const char* at, size_t n) {
    auto& c = of(p);
    c.in_value_ = true;
    c.value_.append(at, n);
    return 0;
  }
  static int on_headers_complete(http_parser* p) {
    auto& c = of(p);
    if (c.in_value_) c.req_.headers[lower(c.field_)] = c.value_;
    c.req_.method = http_method_str(static_cast<http_method>(p->method));
    c.has_body_ = (p->flags & F_CHUNKED) != 0 || (p->content_length > 0 && p->content_length != ULLONG_MAX);
    return 0;
  }
  static int on_body(http_parser*, const char*, size_t) { return 0; }
  static int on_message_complete(http_parser* p) {
    of(p).complete_ = true;
    http_parser_pause(p, 1);  // one request at a time
    return 0;
  }
};

namespace {

const http_parser_settings& settings() {
  static const http_parser_settings s = [] {
    http_parser_settings x{};
    x.on_message_begin = ParserCallbacks::on_message_begin;
    x.on_url = ParserCallbacks::on_url;
    x.on_header_field = ParserCallbacks::on_header_field;
    x.on_header_value = ParserCallbacks::on_header_value;
    x.on_headers_complete = ParserCallbacks::on_headers_complete;
    x.on_body = ParserCallbacks::on_body;
    x.on_message_complete = ParserCallbacks::on_message_complete;
    return x;
  }();
  return s;
}

}  // namespace

HttpConnection::HttpConnection(asio::ip::tcp::socket socket, const HttpServerOptions& options,
                               const HttpHandler& handler, std::function<void()> on_close)
    : socket_(std::move(socket)),
      timer_(socket_.get_executor()),
      options_(options),
      handler_(handler),
      on_close_(std::move(on_close)) {
  asio::error_code ec;
  auto ep = socket_.remote_endpoint(ec);
  peer_ = ec ? "?" : ep.address().to_string() + ":" + std::to_string(ep.port());
  http_parser_init(&parser_, HTTP_REQUEST);
  parser_.data = this;
  if (options_.tls) {
    socket_.non_blocking(true, ec);
    tls_ = std::make_unique<net::TlsStream>(*options_.tls, socket_.native_handle());
    if (!tls_->ok()) spdlog::warn("admin listener: {}: {}", peer_, tls_->error());
  }
}

void HttpConnection::start() {
  if (tls_ && !tls_->ok()) {
    close();
    return;
  }
  arm_timer(options_.header_timeout_ms, 408);
  read_more();
}

void HttpConnection::close() {
  if (closed_) return;
  closed_ = true;
  asio::error_code ec;
  timer_.cancel();
  if (tls_ && tls_->ok()) tls_->shutdown();
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  if (on_close_) on_close_();
}

void HttpConnection::arm_timer(int64_t ms, int status_on_expiry) {
  timer_.expires_after(std::chrono::milliseconds(ms));
  timer_.async_wait([self = shared_from_this(), status_on_expiry](const asio::error_code& ec) {
    if (ec || self->closed_ || self->writing_) return;
    if (status_on_expiry == 0 || (self->buf_.empty() && self->header_bytes_ == 0) ||
        (self->tls_ && !self->handshaken_)) {
      self->close();  // idle keep-alive connection, nothing ever sent, or no TLS session: just close
      return;
    }
    self->fail(status_on_expiry, "request not complete in time");
  });
}

void HttpConnection::read_more() {
  if (closed_ || reading_) return;
  reading_ = true;
  if (tls_) {
    tls_read();
    return;
  }
  socket_.async_read_some(asio::buffer(chunk_), [self = shared_from_this()](const asio::error_code& ec, size_t n) {
    self->reading_ = false;
    if (self->closed_) return;
    if (ec) {
      self->close();
      return;
    }
    self->on_bytes(n);
  });
}

void HttpConnection::on_bytes(size_t n) {
  buf_.append(chunk_, n);
  parse();
}

void HttpConnection::reset_request() {
  req_ = HttpRequest{};
  req_.peer = peer_;
  url_.clear();
  field_.clear();
  value_.clear();
  in_value_ = false;
  has_body_ = false;
}

void HttpConnection::parse() {
  if (closed_ || writing_) return;
  if (!buf_.empty() && header_bytes_ == 0 && !complete_) arm_timer(options_.header_timeout_ms, 408);
  const size_t used = http_parser_execute(&parser_, &settings(), buf_.data(), buf_.size());
  const auto err = HTTP_PARSER_ERRNO(&parser_);
  header_bytes_ += used;
  buf_.erase(0, used);
  if (err != HPE_OK && err != HPE_PAUSED) {
    fail(400, http_errno_description(err));
    return;
  }
  if (!complete_) {
    if (header_bytes_ > static_cast<size_t>(options_.max_header_bytes) ||
        buf_.size() > static_cast<size_t>(options_.max_header_bytes)) {
      fail(431, "request header fields too large");
      return;
    }
    read_more();
    return;
  }
  if (header_bytes_ > static_cast<size_t>(options_.max_header_bytes)) {
    fail(431, "request header fields too large");
    return;
  }
  serve();
}

void HttpConnection::serve() {
  complete_ = false;
  header_bytes_ = 0;
  if (has_body_) {
    fail(413, "the admin API takes no request body");
    return;
  }
  if (req_.method != "GET" && req_.method != "HEAD") {
    HttpResponse r = HttpResponse::text(405, "method not allowed\n");
    r.headers["Allow"] = "GET, HEAD";
    write(r, false, false);
    return;
  }
  http_parser_url u;
  http_parser_url_init(&u);
  if (http_parser_parse_url(url_.data(), url_.size(), 0, &u) != 0 || !(u.field_set & (1 << UF_PATH))) {
    fail(400, "bad request target");
    return;
  }
  req_.path = url_.substr(u.field_data[UF_PATH].off, u.field_data[UF_PATH].len);
  if (u.field_set & (1 << UF_QUERY)) req_.query = url_.substr(u.field_data[UF_QUERY].off, u.field_data[UF_QUERY].len);
  if (!canonical_path(req_.path)) {
    fail(400, "path is not canonical");
    return;
  }
  const bool keep_alive = http_should_keep_alive(&parser_) != 0;
  HttpResponse resp;
  try {
    resp = handler_(req_);
  } catch (const std::exception& e) {
    spdlog::error("admin listener: {} {} from {}: {}", req_.method, req_.path, peer_, e.what());
    resp = HttpResponse::text(500, "internal error\n");
  }
  write(resp, req_.method == "HEAD", keep_alive);
}

void HttpConnection::fail(int status, const std::string& why) {
  spdlog::debug("admin listener: {} from {}: {}", status, peer_, why);
  write(HttpResponse::text(status, std::string(reason_phrase(status)) + ": " + why + "\n"), false, false);
}

void HttpConnection::write(const HttpResponse& resp, bool head, bool keep_alive) {
  if (closed_) return;
  out_ = "HTTP/1.1 " + std::to_string(resp.status) + " " + reason_phrase(resp.status) + "\r\n";
  out_ += "Content-Type: " + resp.content_type + "\r\n";
  out_ += "Content-Length: " + std::to_string(resp.body.size()) + "\r\n";
  out_ += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n";
  for (const auto& [k, v] : resp.headers) out_ += k + ": " + v + "\r\n";
  out_ += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
  if (!head) out_ += resp.body;
  writing_ = true;
  keep_alive_ = keep_alive;
  timer_.cancel();
  if (tls_) {
    out_sent_ = 0;
    tls_send();
    return;
  }
  asio::async_write(socket_, asio::buffer(out_), [self = shared_from_this()](const asio::error_code& ec, size_t) {
    self->after_write(!ec);
  });
}

void HttpConnection::after_write(bool ok) {
  writing_ = false;
  if (!ok || !keep_alive_ || closed_) {
    close();
    return;
  }
  http_parser_pause(&parser_, 0);
  arm_timer(options_.idle_timeout_ms, 0);
  if (buf_.empty()) {
    read_more();
  } else {
    parse();
  }
}

void HttpConnection::wait_for(net::TlsStream::Io io, void (HttpConnection::*then)()) {
  const auto what = io == net::TlsStream::Io::kWantWrite ? asio::socket_base::wait_write : asio::socket_base::wait_read;
  socket_.async_wait(what, [self = shared_from_this(), then](const asio::error_code& ec) {
    if (self->closed_) return;
    if (ec) {
      self->close();
      return;
    }
    ((*self).*then)();
  });
}

void HttpConnection::tls_read() {
  using Io = net::TlsStream::Io;
  if (!handshaken_) {
    const Io io = tls_->handshake();
    if (io == Io::kWantRead || io == Io::kWantWrite) return wait_for(io, &HttpConnection::tls_read);
    if (io != Io::kDone) {
      spdlog::debug("admin listener: {}: {}", peer_, tls_->error());
      close();
      return;
    }
    handshaken_ = true;
  }
  const auto r = tls_->read(reinterpret_cast<uint8_t*>(chunk_), sizeof chunk_);
  if (r.io == Io::kWantRead || r.io == Io::kWantWrite) return wait_for(r.io, &HttpConnection::tls_read);
  reading_ = false;
  if (r.io != Io::kDone) {
    if (r.io == Io::kError) spdlog::debug("admin listener: {}: {}", peer_, tls_->error());
    close();
    return;
  }
  on_bytes(r.n);
}

void HttpConnection::tls_send() {
  using Io = net::TlsStream::Io;
  while (out_sent_ < out_.size()) {
    const auto r = tls_->write(reinterpret_cast<const uint8_t*>(out_.data()) + out_sent_, out_.size() - out_sent_);
    if (r.io == Io::kWantRead || r.io == Io::kWantWrite) return wait_for(r.io, &HttpConnection::tls_send);
    if (r.io != Io::kDone) {
      after_write(false);
      return;
    }
    out_sent_ += r.n;
  }
  after_write(true);
}

}  // namespace spool::http
