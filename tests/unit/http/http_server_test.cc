#include "http/http_server.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "net/test_client.h"

namespace spool::http {
namespace {

// Sends `req` on a new connection and reads until the server closes (or 5 s
// pass without data).
std::string round_trip(uint16_t port, const std::string& req) {
  net::testing::TestClient c(port, 5000);
  if (!c.connected()) return "connect failed";
  c.send_raw(req);
  return c.read_until_closed();
}

HttpServerOptions ephemeral() {
  HttpServerOptions o;
  o.port = 0;
  return o;
}

int status_of(const std::string& reply) {
  if (reply.rfind("HTTP/1.1 ", 0) != 0) return 0;
  return std::stoi(reply.substr(9, 3));
}

class HttpServerTest : public ::testing::Test {
 protected:
  void start(HttpServerOptions o = {}) {
    o.port = 0;
    server_ = std::make_unique<HttpServer>(o, [this](const HttpRequest& r) {
      ++calls_;
      return HttpResponse::text(200, r.method + " " + r.path + " q=" + r.param("q") + "\n");
    });
    ASSERT_TRUE(server_->start());
    port_ = server_->port();
  }
  std::unique_ptr<HttpServer> server_;
  uint16_t port_ = 0;
  std::atomic<int> calls_{0};
};

TEST_F(HttpServerTest, AnswersGetAndHeadAndDecodesTheQuery) {
  start();
  std::string r = round_trip(port_, "GET /v1/x?q=a%20b&z=1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(r), 200) << r;
  EXPECT_NE(r.find("Content-Length: 16\r\n"), std::string::npos) << r;
  EXPECT_TRUE(r.ends_with("\r\n\r\nGET /v1/x q=a b\n")) << r;
  r = round_trip(port_, "HEAD /v1/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(r), 200);
  EXPECT_TRUE(r.ends_with("\r\n\r\n")) << r;  // the length, not the body
}

TEST_F(HttpServerTest, KeepAliveAnswersPipelinedRequestsInOrder) {
  start();
  std::string r = round_trip(port_,
                           "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n"
                           "GET /c HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  const size_t a = r.find("GET /a"), b = r.find("GET /b"), c = r.find("GET /c");
  ASSERT_NE(c, std::string::npos) << r;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_EQ(calls_.load(), 3);
}

TEST_F(HttpServerTest, RefusesWhatItDoesNotServe) {
  start();
  EXPECT_EQ(status_of(round_trip(port_, "POST /a HTTP/1.1\r\nHost: h\r\n\r\n")), 405);
  EXPECT_EQ(status_of(round_trip(port_, "GET /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc")), 413);
  EXPECT_EQ(status_of(round_trip(port_, "GET /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")),
            413);
  for (const char* path : {"/a/../b", "/..", "/a/./b", "//a", "/a%2e%2E/b", "/a%2Fb", "/a\\b", "/a%00"})
    EXPECT_EQ(status_of(round_trip(port_, std::string("GET ") + path + " HTTP/1.1\r\nHost: h\r\n\r\n")), 400) << path;
  EXPECT_EQ(status_of(round_trip(port_, "not http at all\r\n\r\n")), 400);
  EXPECT_EQ(calls_.load(), 0);
}

TEST_F(HttpServerTest, BoundsHeadersSlowClientsAndConnections) {
  HttpServerOptions o;
  o.max_header_bytes = 1024;
  o.header_timeout_ms = 300;
  o.max_connections = 2;
  start(o);
  EXPECT_EQ(status_of(round_trip(port_, "GET /a HTTP/1.1\r\nX: " + std::string(5000, 'a') + "\r\n\r\n")), 431);
  // A header that never ends: answered 408 and closed after the timeout.
  const auto t0 = std::chrono::steady_clock::now();
  std::string r = round_trip(port_, "GET /a HTTP/1.1\r\nX-Slow: 1\r\n");
  EXPECT_EQ(status_of(r), 408) << r;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  // Two idle connections take the slots; a third is closed at once.
  net::testing::TestClient a(port_), b(port_);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::string third = round_trip(port_, "GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(third, "");
  a.close();
  b.close();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(status_of(round_trip(port_, "GET /a HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")), 200);
}

TEST_F(HttpServerTest, AHandlerExceptionIsA500) {
  server_ = std::make_unique<HttpServer>(ephemeral(), [](const HttpRequest&) -> HttpResponse {
    throw std::runtime_error("boom");
  });
  ASSERT_TRUE(server_->start());
  EXPECT_EQ(status_of(round_trip(server_->port(), "GET /a HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")), 500);
}

TEST(HttpServerStart, ABusyPortFailsTheStart) {
  HttpServer first(ephemeral(), [](const HttpRequest&) { return HttpResponse::text(200, ""); });
  ASSERT_TRUE(first.start());
  HttpServerOptions taken = ephemeral();
  taken.port = first.port();
  HttpServer second(taken,
                    [](const HttpRequest&) { return HttpResponse::text(200, ""); });
  Status s = second.start();
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("cannot listen"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace spool::http
