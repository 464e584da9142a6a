// The net layer on a TLS listener, over real loopback sockets: handshakes,
// frames read through TLS (small, pipelined, larger than a record, larger
// than the read buffer), answers with file regions, the client
// certificate's subject in ConnectionInfo, and failed handshakes closing
// only their own connection.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "../security/test_certs.h"
#include "net/server.h"
#include "security/tls_config.h"
#include "test_client.h"
#include "tls_test_client.h"

namespace spool::net {
namespace {

using spool::testing::TestCerts;
using testing::TlsClient;

// Echoes each frame; "file <off> <len>" answers "<" + those file bytes + ">"
// from a file region, as a fetch does. Records each connection's subject.
class Handler : public RequestHandler {
 public:
  explicit Handler(int fd) : fd_(fd) {}
  void handle(const ConnectionInfo& conn, FrameBytes frame, Responder responder) override {
    {
      std::lock_guard lock(mu);
      subjects.push_back(conn.tls ? conn.tls_peer_dn : "<no tls>");
    }
    std::string req(frame.begin(), frame.end());
    if (req.rfind("file ", 0) == 0) {
      const size_t sp = req.find(' ', 5);
      Response r(Bytes{'<', '>'});
      r.splices.push_back({1, FileRegion{std::make_shared<int>(0), fd_, std::stoll(req.substr(5, sp - 5)),
                                         std::stoll(req.substr(sp + 1))}});
      responder.send(std::move(r));
      return;
    }
    responder.send(Bytes(frame.begin(), frame.end()));
  }
  std::mutex mu;
  std::vector<std::string> subjects;

 private:
  int fd_;
};

class NetTlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::err); }

  void SetUp() override {
    const uint32_t seed = std::random_device{}();
    std::printf("file seed %u\n", seed);
    std::mt19937 rng(seed);
    file_.resize(1 << 20);
    for (char& c : file_) c = static_cast<char>(rng());
    std::FILE* f = std::tmpfile();
    std::fwrite(file_.data(), 1, file_.size(), f);
    std::fflush(f);
    file_handle_ = f;
    handler_ = std::make_unique<Handler>(fileno(f));
  }
  void TearDown() override {
    if (server_) server_->stop();
    std::fclose(file_handle_);
  }

  void start(security::TlsClientAuth auth, bool sendfile = true) {
    auto ctx = security::TlsContext::create(certs_.server_config(auth), security::TlsContext::Side::kServer);
    ASSERT_TRUE(ctx.is_ok()) << ctx.status().message();
    ServerOptions o;
    o.listeners[0].port = 0;
    o.listeners[0].tls = *ctx;
    o.listeners.push_back(ListenAddress{"PLAIN", "127.0.0.1", 0});
    o.threads = 2;
    o.sendfile = sendfile;
    server_ = std::make_unique<Server>(o, *handler_);
    ASSERT_TRUE(server_->start().is_ok());
  }
  std::shared_ptr<const security::TlsContext> client(bool with_cert) {
    return *security::TlsContext::create(certs_.client_config(with_cert), security::TlsContext::Side::kClient);
  }

  TestCerts certs_;
  std::string file_;
  std::FILE* file_handle_ = nullptr;
  std::unique_ptr<Handler> handler_;
  std::unique_ptr<Server> server_;
};

TEST_F(NetTlsTest, FramesOfEverySizeRoundTripInOrder) {
  start(security::TlsClientAuth::kNone);
  TlsClient c(server_->port(), *client(false));
  ASSERT_TRUE(c.connected());
  // Pipelined: small ones leave together, 20 KB spans two records, 300 KB
  // is larger than the read buffer.
  const std::vector<size_t> sizes = {1, 5, 100, 16384, 20000, 300000, 7};
  std::vector<std::string> sent;
  for (size_t i = 0; i < sizes.size(); ++i) {
    sent.push_back(std::string(sizes[i], static_cast<char>('a' + i)));
    ASSERT_TRUE(c.send_frame(sent.back()));
  }
  for (const std::string& want : sent) {
    auto got = c.read_frame();
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, want);
  }
  std::lock_guard lock(handler_->mu);
  EXPECT_EQ(handler_->subjects.front(), "");  // TLS, no client certificate
}

TEST_F(NetTlsTest, FileRegionAnswersAreByteIdenticalWithAndWithoutSendfile) {
  for (bool sendfile : {true, false}) {
    start(security::TlsClientAuth::kNone, sendfile);
    TlsClient c(server_->port(), *client(false));
    ASSERT_TRUE(c.connected());
    const std::vector<std::pair<size_t, size_t>> asks = {{0, 10}, {3, 1000000}, {500, 0}, {77, 65536}};
    for (const auto& [off, len] : asks) ASSERT_TRUE(c.send_frame("file " + std::to_string(off) + " " + std::to_string(len)));
    for (const auto& [off, len] : asks) {
      auto got = c.read_frame();
      ASSERT_TRUE(got.has_value());
      ASSERT_EQ(got->size(), len + 2);
      EXPECT_EQ(got->substr(1, len), file_.substr(off, len)) << "sendfile " << sendfile;
    }
    server_->stop();
    server_.reset();
  }
}

TEST_F(NetTlsTest, ClientCertificateSubjectReachesTheHandler) {
  start(security::TlsClientAuth::kRequired);
  TlsClient c(server_->port(), *client(true));
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.send_frame("hello"));
  ASSERT_EQ(c.read_frame(), std::optional<std::string>("hello"));
  std::lock_guard lock(handler_->mu);
  EXPECT_EQ(handler_->subjects.back(), "CN=client-1,OU=eng,O=Spool,C=NO");
}

TEST_F(NetTlsTest, FailedHandshakesCloseOnlyTheirConnection) {
  start(security::TlsClientAuth::kRequired);
  // Waits on a handshake that never comes, through the whole test.
  testing::TestClient silent(server_->port());
  ASSERT_TRUE(silent.connected());
  // Plaintext Kafka bytes on the TLS port: not a ClientHello.
  testing::TestClient plain(server_->port());
  ASSERT_TRUE(plain.send_frame("not a tls hello"));
  EXPECT_TRUE(plain.closed_by_peer());
  // A truncated ClientHello, then the peer leaves.
  {
    testing::TestClient truncated(server_->port());
    ASSERT_TRUE(truncated.send_raw(std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11)));
  }
  // Required client authentication: no certificate, no session.
  TlsClient anonymous(server_->port(), *client(false));
  if (anonymous.connected()) {  // TLS 1.3 reports the refusal on the first read
    anonymous.send_frame("x");
    EXPECT_FALSE(anonymous.read_frame().has_value());
  }
  // The plaintext listener and a good TLS client are unaffected.
  testing::TestClient other(server_->port(1));
  ASSERT_TRUE(other.send_frame("plain"));
  EXPECT_EQ(other.read_frame(), std::optional<std::string>("plain"));
  TlsClient good(server_->port(), *client(true));
  ASSERT_TRUE(good.connected());
  ASSERT_TRUE(good.send_frame("still here"));
  EXPECT_EQ(good.read_frame(), std::optional<std::string>("still here"));
  std::lock_guard lock(handler_->mu);
  EXPECT_EQ(handler_->subjects.size(), 2u) << "only the two good clients reached the handler";
}

}  // namespace
}  // namespace spool::net
