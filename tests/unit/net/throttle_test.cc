// KIP-219 muting in the net layer: an answer with Response::mute_ms stops
// the connection reading for that long, then it serves again by itself;
// other connections and an acks=0-style no_response with a mute behave the
// same. Bounds are lower bounds only (a slow machine makes them longer).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

#include <spdlog/spdlog.h>

#include "net/server.h"
#include "test_client.h"

namespace spool::net {
namespace {

using testing::TestClient;
using testing::wait_until;
using Clock = std::chrono::steady_clock;
constexpr int kMuteMs = 300;

// Echoes every frame; a frame "mute" is answered with a mute, a frame
// "silent-mute" gets no answer but mutes all the same.
class MutingHandler : public RequestHandler {
 public:
  std::atomic<int> requests{0};
  void handle(const ConnectionInfo&, FrameBytes frame, Responder responder) override {
    ++requests;
    const std::string body(frame.begin(), frame.end());
    if (body == "silent-mute") {
      responder.no_response(kMuteMs);
      return;
    }
    Response r(Bytes(body.begin(), body.end()));
    if (body == "mute") r.mute_ms = kMuteMs;
    responder.send(std::move(r));
  }
};

class NetThrottleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::warn); }
  void SetUp() override {
    ServerOptions o;
    o.listeners[0].port = 0;
    o.threads = 2;
    server_ = std::make_unique<Server>(o, handler_);
    ASSERT_TRUE(server_->start().is_ok());
  }
  static int64_t ms_since(Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
  }

  MutingHandler handler_;
  std::unique_ptr<Server> server_;
};

TEST_F(NetThrottleTest, AMutedConnectionReadsNothingUntilTheTimeIsOver) {
  TestClient c(server_->port());
  TestClient other(server_->port());
  ASSERT_TRUE(c.connected() && other.connected());
  ASSERT_TRUE(c.send_frame("mute"));
  EXPECT_EQ(c.read_frame(), "mute");
  const auto answered = Clock::now();
  ASSERT_TRUE(c.send_frame("next"));
  // Meanwhile another connection is served at once.
  ASSERT_TRUE(other.send_frame("other"));
  EXPECT_EQ(other.read_frame(), "other");
  EXPECT_EQ(c.read_frame(), "next");
  EXPECT_GE(ms_since(answered), kMuteMs - 20) << "the muted connection was read early";
  // Not muted any more: the next frame is answered without a wait.
  ASSERT_TRUE(c.send_frame("again"));
  EXPECT_EQ(c.read_frame(), "again");
}

TEST_F(NetThrottleTest, NoResponseWithAMuteMutesToo) {
  TestClient c(server_->port());
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.send_frame("silent-mute"));
  ASSERT_TRUE(wait_until([&] { return handler_.requests == 1; }));
  const auto muted = Clock::now();
  ASSERT_TRUE(c.send_frame("next"));
  EXPECT_EQ(c.read_frame(), "next");
  EXPECT_GE(ms_since(muted), kMuteMs - 20);
  EXPECT_EQ(handler_.requests, 2);
}

}  // namespace
}  // namespace spool::net
