#include "http/http_server.h"

#include <spdlog/spdlog.h>

#include <asio.hpp>
#include <atomic>
#include <thread>

#include "http/http_connection.h"

namespace spool::http {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

}  // namespace

std::string HttpRequest::param(std::string_view name) const {
  std::string_view q = query;
  while (!q.empty()) {
    const size_t amp = q.find('&');
    const std::string_view pair = q.substr(0, amp);
    const size_t eq = pair.find('=');
    if (percent_decode(pair.substr(0, eq)) == name)
      return eq == std::string_view::npos ? "" : percent_decode(pair.substr(eq + 1));
    if (amp == std::string_view::npos) break;
    q.remove_prefix(amp + 1);
  }
  return "";
}

HttpResponse HttpResponse::text(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse HttpResponse::json(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = std::move(body);
  return r;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

struct HttpServer::Impl {
  HttpServerOptions options;
  HttpHandler handler;
  asio::io_context io{1};
  asio::ip::tcp::acceptor acceptor{io};
  std::thread thread;
  std::atomic<size_t> connections{0};
  std::atomic<uint16_t> port{0};
  std::vector<std::weak_ptr<HttpConnection>> live;  // the server thread's
  bool stopped = false;

  void accept() {
    acceptor.async_accept([this](const asio::error_code& ec, asio::ip::tcp::socket socket) {
      if (ec) {
        if (ec != asio::error::operation_aborted) {
          spdlog::warn("admin listener: accept failed: {}", ec.message());
          accept();
        }
        return;
      }
      if (connections.load() >= static_cast<size_t>(options.max_connections)) {
        spdlog::debug("admin listener: closing a connection beyond {} connections", options.max_connections);
        asio::error_code ignored;
        socket.close(ignored);
      } else {
        connections.fetch_add(1);
        auto c = std::make_shared<HttpConnection>(std::move(socket), options, handler,
                                                  [this] { connections.fetch_sub(1); });
        std::erase_if(live, [](const auto& w) { return w.expired(); });
        live.push_back(c);
        c->start();
      }
      accept();
    });
  }
};

HttpServer::HttpServer(HttpServerOptions options, HttpHandler handler) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->handler = std::move(handler);
}

HttpServer::~HttpServer() { stop(); }

Status HttpServer::start() {
  auto& m = *impl_;
  asio::error_code ec;
  asio::ip::tcp::resolver resolver(m.io);
  auto hosts = resolver.resolve(m.options.host.empty() ? "0.0.0.0" : m.options.host,
                                std::to_string(m.options.port), ec);
  if (ec || hosts.empty())
    return Status::error("admin listener: cannot resolve " + m.options.host + ": " + ec.message());
  const auto ep = hosts.begin()->endpoint();
  m.acceptor.open(ep.protocol(), ec);
  if (!ec) m.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) m.acceptor.bind(ep, ec);
  if (!ec) m.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    asio::error_code ignored;
    m.acceptor.close(ignored);
    return Status::error("admin listener: cannot listen on " + m.options.host + ":" + std::to_string(m.options.port) +
                         ": " + ec.message());
  }
  m.port.store(m.acceptor.local_endpoint().port());
  m.accept();
  m.thread = std::thread([&m] {
    pthread_setname_np(pthread_self(), "admin-http");
    m.io.run();
  });
  return Status::ok();
}

void HttpServer::stop() {
  auto& m = *impl_;
  if (m.stopped) return;
  m.stopped = true;
  if (!m.thread.joinable()) return;
  asio::post(m.io, [&m] {
    asio::error_code ignored;
    m.acceptor.close(ignored);
    for (auto& w : m.live)
      if (auto c = w.lock()) c->close();
    m.io.stop();
  });
  m.thread.join();
}

uint16_t HttpServer::port() const { return impl_->port.load(); }

size_t HttpServer::connection_count() const { return impl_->connections.load(); }

}  // namespace spool::http
