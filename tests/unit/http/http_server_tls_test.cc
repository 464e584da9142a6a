// The admin HTTP server over TLS (HttpServerOptions::tls), on real loopback
// sockets: answers through TLS with keep-alive, plaintext sent to the TLS
// port gets no HTTP answer, a client that never starts the handshake is
// closed after the header time-out, and a required client certificate is
// enforced.
#include <gtest/gtest.h>

#include <csignal>
#include <chrono>
#include <string>
#include <thread>

#include "http/http_server.h"
#include "net/test_client.h"
#include "net/tls_test_client.h"
#include "security/test_certs.h"
#include "security/tls_context.h"

namespace spool::http {
namespace {

using net::testing::TlsClient;

class HttpServerTlsTest : public ::testing::Test {
 protected:
  // A client writing to a connection the server refused must not die of it.
  void SetUp() override { std::signal(SIGPIPE, SIG_IGN); }
  void start(security::TlsClientAuth auth) {
    auto ctx = security::TlsContext::create(certs_.server_config(auth), security::TlsContext::Side::kServer);
    ASSERT_TRUE(ctx.is_ok()) << ctx.status().message();
    HttpServerOptions o;
    o.port = 0;
    o.header_timeout_ms = 300;
    o.tls = *ctx;
    server_ = std::make_unique<HttpServer>(o, [](const HttpRequest& r) {
      return HttpResponse::text(200, r.method + " " + r.path + "\n");
    });
    ASSERT_TRUE(server_->start());
  }
  std::shared_ptr<const security::TlsContext> client(bool with_cert) {
    return *security::TlsContext::create(certs_.client_config(with_cert), security::TlsContext::Side::kClient);
  }
  // Waits (up to 3 s) until the server holds `n` connections.
  bool connections_become(size_t n) {
    for (int i = 0; i < 300 && server_->connection_count() != n; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return server_->connection_count() == n;
  }

  spool::testing::TestCerts certs_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTlsTest, AnswersThroughTlsWithKeepAlive) {
  start(security::TlsClientAuth::kNone);
  auto ctx = client(false);
  TlsClient c(server_->port(), *ctx);
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.write("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"));
  const std::string r = c.read_until_closed();
  EXPECT_TRUE(r.starts_with("HTTP/1.1 200 OK\r\n")) << r;
  const size_t a = r.find("\r\n\r\nGET /a\n"), b = r.find("\r\n\r\nGET /b\n");
  ASSERT_NE(a, std::string::npos) << r;
  ASSERT_NE(b, std::string::npos) << r;
  EXPECT_LT(a, b);
  EXPECT_NE(r.find("Connection: keep-alive"), std::string::npos) << r;
}

TEST_F(HttpServerTlsTest, PlaintextAndSilentClientsAreClosed) {
  start(security::TlsClientAuth::kNone);
  // Plain HTTP on the TLS port: the handshake fails, no HTTP answer.
  net::testing::TestClient plain(server_->port(), 5000);
  ASSERT_TRUE(plain.connected());
  plain.send_raw("GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(plain.read_until_closed().find("HTTP/1.1"), std::string::npos);
  // A client that connects and never starts the handshake: closed after
  // the header time-out (300 ms), not held.
  net::testing::TestClient silent(server_->port(), 5000);
  ASSERT_TRUE(silent.connected());
  EXPECT_TRUE(connections_become(1));
  EXPECT_EQ(silent.read_until_closed(), "");
  EXPECT_TRUE(connections_become(0));
  // The server still answers.
  auto ctx = client(false);
  TlsClient c(server_->port(), *ctx);
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.write("GET /after HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"));
  EXPECT_NE(c.read_until_closed().find("GET /after"), std::string::npos);
}

TEST_F(HttpServerTlsTest, ARequiredClientCertificateIsEnforced) {
  start(security::TlsClientAuth::kRequired);
  auto without = client(false);
  TlsClient anonymous(server_->port(), *without);
  // TLS 1.3: the client may finish its side before the server refuses.
  if (anonymous.connected()) {
    anonymous.write("GET /a HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(anonymous.read_until_closed().find("HTTP/1.1"), std::string::npos);
  }
  auto with = client(true);
  TlsClient known(server_->port(), *with);
  ASSERT_TRUE(known.connected());
  ASSERT_TRUE(known.write("GET /a HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"));
  EXPECT_TRUE(known.read_until_closed().starts_with("HTTP/1.1 200 OK\r\n"));
}

}  // namespace
}  // namespace spool::http
