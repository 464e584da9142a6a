// The net layer's hooks for authenticating listeners, over real loopback
// sockets: the per-connection session from RequestHandler::on_connect, the
// pre-authentication frame bound (ListenAddress::
// max_unauthenticated_request_bytes) and its lifting by
// Responder::send_authenticated, and Responder::send_then_close.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "net/server.h"
#include "test_client.h"

namespace spool::net {
namespace {

using testing::TestClient;
using testing::wait_until;

struct CountingSession : ConnectionSession {
  int frames = 0;
};

// "login" authenticates, "fail" answers then closes, anything else is
// echoed with the number of frames this connection's session has seen.
class AuthHandler : public RequestHandler {
 public:
  std::atomic<int> sessions{0};
  std::atomic<int> disconnects_with_session{0};

  std::shared_ptr<ConnectionSession> on_connect(const ConnectionInfo&) override {
    ++sessions;
    return std::make_shared<CountingSession>();
  }
  void handle(const ConnectionInfo& conn, FrameBytes frame, Responder r) override {
    auto* session = static_cast<CountingSession*>(conn.session.get());
    const std::string body(frame.begin(), frame.end());
    ++session->frames;
    if (body == "login") {
      r.send_authenticated(Response(Bytes{'o', 'k'}));
    } else if (body == "fail") {
      r.send_then_close(Response(Bytes{'n', 'o'}), "test: authentication failed");
    } else {
      std::string out = body + "#" + std::to_string(session->frames);
      r.send(Bytes(out.begin(), out.end()));
    }
  }
  void on_disconnect(const ConnectionInfo& conn) override {
    if (conn.session) ++disconnects_with_session;
  }
};

class NetAuthenticationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::err); }

  void SetUp() override {
    ServerOptions o;
    o.listeners = {ListenAddress{"SASL", "127.0.0.1", 0, 64}, ListenAddress{"PLAINTEXT", "127.0.0.1", 0}};
    o.threads = 2;
    o.max_request_bytes = 4096;
    server_ = std::make_unique<Server>(o, handler_);
    Status st = server_->start();
    ASSERT_TRUE(st.is_ok()) << st.message();
  }

  AuthHandler handler_;
  std::unique_ptr<Server> server_;
};

TEST_F(NetAuthenticationTest, EachConnectionHasItsOwnSession) {
  TestClient a(server_->port(0)), b(server_->port(0));
  ASSERT_TRUE(a.send_frame("x"));
  EXPECT_EQ(a.read_frame(), "x#1");
  ASSERT_TRUE(a.send_frame("y"));
  EXPECT_EQ(a.read_frame(), "y#2");
  ASSERT_TRUE(b.send_frame("z"));
  EXPECT_EQ(b.read_frame(), "z#1");
  EXPECT_EQ(handler_.sessions, 2);
}

TEST_F(NetAuthenticationTest, FramesAboveThePreAuthBoundCloseBeforeAuthentication) {
  const std::string big(100, 'b');  // above 64, below max_request_bytes
  TestClient c(server_->port(0));
  ASSERT_TRUE(c.send_frame(std::string(64, 's')));  // exactly at the bound
  EXPECT_EQ(c.read_frame(), std::string(64, 's') + "#1");
  ASSERT_TRUE(c.send_frame(big));
  EXPECT_TRUE(c.closed_by_peer());
  // A claimed 1 GB frame costs nothing either.
  TestClient huge(server_->port(0));
  ASSERT_TRUE(huge.send_raw(TestClient::encode_size(1 << 30)));
  EXPECT_TRUE(huge.closed_by_peer());
  // The bound is the authenticating listener's alone.
  TestClient plain(server_->port(1));
  ASSERT_TRUE(plain.send_frame(big));
  EXPECT_EQ(plain.read_frame(), big + "#1");
  EXPECT_TRUE(wait_until([&] { return handler_.disconnects_with_session == 2; }));
}

TEST_F(NetAuthenticationTest, AuthenticatedAnswerLiftsTheBoundToMaxRequestBytes) {
  TestClient c(server_->port(0));
  ASSERT_TRUE(c.send_frame("login"));
  EXPECT_EQ(c.read_frame(), "ok");
  const std::string big(4096, 'b');
  ASSERT_TRUE(c.send_frame(big));
  EXPECT_EQ(c.read_frame(), big + "#2");
  ASSERT_TRUE(c.send_raw(TestClient::encode_size(4097)));  // socket.request.max.bytes still holds
  EXPECT_TRUE(c.closed_by_peer());
}

TEST_F(NetAuthenticationTest, SendThenCloseWritesTheAnswerAndClosesDroppingLaterOnes) {
  TestClient c(server_->port(0));
  ASSERT_TRUE(c.send_raw(TestClient::frame("first") + TestClient::frame("fail") + TestClient::frame("lost")));
  EXPECT_EQ(c.read_frame(), "first#1");
  EXPECT_EQ(c.read_frame(), "no");
  EXPECT_TRUE(c.closed_by_peer());
  EXPECT_TRUE(wait_until([&] { return handler_.disconnects_with_session == 1; }));
  // Other connections are unaffected.
  TestClient other(server_->port(0));
  ASSERT_TRUE(other.send_frame("hi"));
  EXPECT_EQ(other.read_frame(), "hi#1");
}

}  // namespace
}  // namespace spool::net
