// NetworkClient's TLS refusals against a real TLS listener (net::Server with
// required client authentication): the failure a caller sees names the TLS
// reason (the certificate check's verdict, the broker's alert), not the
// socket reset that follows it. The `spool` CLI prints these messages.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "../security/test_certs.h"
#include "client/network_client.h"
#include "client_test_support.h"
#include "net/server.h"
#include "security/tls_config.h"

namespace spool::client {
namespace {

using testing::Collector;
using testing::fast_options;
using testing::kMetadata;
using testing::kNetworkException;
using testing::raw;

// Never reached: every client here is refused during or right after the
// handshake.
class Unreachable : public net::RequestHandler {
 public:
  void handle(const net::ConnectionInfo&, FrameBytes, net::Responder) override { ADD_FAILURE() << "handler reached"; }
};

class NetworkClientTlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::err); }

  void SetUp() override {
    auto ctx = security::TlsContext::create(certs_.server_config(security::TlsClientAuth::kRequired),
                                            security::TlsContext::Side::kServer);
    ASSERT_TRUE(ctx.is_ok()) << ctx.status().message();
    net::ServerOptions o;
    o.listeners[0].host = "127.0.0.1";
    o.listeners[0].port = 0;
    o.listeners[0].tls = *ctx;
    o.threads = 1;
    server_ = std::make_unique<net::Server>(o, handler_);
    ASSERT_TRUE(server_->start().is_ok());
  }
  void TearDown() override {
    if (server_) server_->stop();
  }

  // The failure of one request from a client trusting `ca` (no certificate
  // of its own).
  Status refusal(const std::string& ca) {
    auto tls = security::TlsContext::create(certs_.client_config(false, ca), security::TlsContext::Side::kClient);
    EXPECT_TRUE(tls.is_ok()) << tls.status().message();
    auto sec = std::make_shared<ClientSecurity>();
    sec->protocol = "SSL";
    sec->tls = *tls;
    NetworkClientOptions o = fast_options();
    o.security = sec;
    NetworkClient client(o);
    Collector<RawResponse> got;
    client.send(Node{1, "127.0.0.1", server_->port()}, raw(kMetadata, 0, 12, "q"), got.callback());
    EXPECT_TRUE(got.wait(1));
    if (got.size() != 1 || got.at(0)) return Status::ok();
    return got.at(0).status();
  }

  spool::testing::TestCerts certs_;
  Unreachable handler_;
  std::unique_ptr<net::Server> server_;
};

TEST_F(NetworkClientTlsTest, AnUntrustedBrokerFailsWithTheCertificateCheck) {
  const Status s = refusal("other-ca.pem");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.kafka_code(), kNetworkException);
  EXPECT_NE(s.message().find("TLS handshake with node 1 (127.0.0.1:"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("certificate verify failed"), std::string::npos) << s.message();
}

TEST_F(NetworkClientTlsTest, ARefusedClientCertificateNamesTheAlertNotTheReset) {
  // TLS 1.3: the client's handshake completes before the broker checks the
  // (missing) certificate; the broker's alert arrives on the first read.
  for (int i = 0; i < 5; ++i) {
    const Status s = refusal("ca.pem");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.kafka_code(), kNetworkException);
    EXPECT_NE(s.message().find("TLS"), std::string::npos) << s.message();
    EXPECT_EQ(s.message().find("reset by peer"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace spool::client
