// Unit tests of net's request timing (net/response.h ResponseTiming): the
// stage arithmetic, and the stamps a real connection takes and hands to
// RequestHandler::on_answered, over loopback sockets.
#include "net/response.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "net/server.h"
#include "test_client.h"
#include "util/clock.h"

namespace spool::net {
namespace {

using testing::TestClient;
using testing::wait_until;

constexpr int64_t kMs = 1'000'000;

TEST(ResponseTiming, AnswerInsideTheHandlerHasNoRemoteTime) {
  ResponseTiming t;
  t.received_ns = 100;
  t.ready_ns = 150;  // answered before handle() returned
  t.handled_ns = 160;
  t.sent_ns = 400;
  EXPECT_EQ(t.remote_ns(), 0);
  EXPECT_EQ(t.send_ns(), 240);  // from the handler's return
  EXPECT_EQ(t.total_ns(), 300);
}

TEST(ResponseTiming, ParkedAnswerSplitsIntoRemoteAndSend) {
  ResponseTiming t;
  t.received_ns = 100;
  t.handled_ns = 160;
  t.ready_ns = 1160;  // parked for 1000 ns
  t.sent_ns = 1200;
  EXPECT_EQ(t.remote_ns(), 1000);
  EXPECT_EQ(t.send_ns(), 40);
  EXPECT_EQ(t.total_ns(), 1100);
  // What is left of total is the time up to handle()'s return.
  EXPECT_EQ(t.total_ns() - t.remote_ns() - t.send_ns(), t.handled_ns - t.received_ns);
}

TEST(ResponseTiming, StampsOutOfOrderNeverGiveNegativeTimes) {
  ResponseTiming t;  // all zero: nothing stamped
  EXPECT_EQ(t.remote_ns(), 0);
  EXPECT_EQ(t.send_ns(), 0);
  EXPECT_EQ(t.total_ns(), 0);
  t.handled_ns = 50;
  t.sent_ns = 10;
  EXPECT_EQ(t.send_ns(), 0);
}

// Answers by the first byte of the frame: 'n' now (inside handle), 'p'
// parked (from another thread after 60 ms), 'z' no_response, 'c' close.
// The tag is the byte; every on_answered report is kept.
class TimingHandler : public RequestHandler {
 public:
  void handle(const ConnectionInfo&, FrameBytes frame, Responder r) override {
    const int64_t now = steady_clock_ns();
    const char kind = static_cast<char>(frame[0]);
    {
      std::lock_guard lock(mu);
      received.push_back(r.received_ns());
      handle_started.push_back(now);
    }
    Response answer(Bytes(frame.begin(), frame.end()));
    answer.timing.tag = kind;
    switch (kind) {
      case 'p':
        workers.emplace_back([r, answer = std::move(answer)]() mutable {
          std::this_thread::sleep_for(std::chrono::milliseconds(60));
          r.send(std::move(answer));
        });
        return;
      case 'z':
        r.no_response(0, kind);
        return;
      case 'c':
        r.close("asked to");
        return;
      default:
        r.send(std::move(answer));
    }
  }
  void on_answered(const ConnectionInfo&, const ResponseTiming& timing) override {
    std::lock_guard lock(mu);
    answered.push_back(timing);
  }
  size_t answered_count() {
    std::lock_guard lock(mu);
    return answered.size();
  }
  ~TimingHandler() override {
    for (auto& w : workers) w.join();
  }

  std::mutex mu;
  std::vector<int64_t> received;        // Responder::received_ns() in handle()
  std::vector<int64_t> handle_started;  // the clock when handle() began
  std::vector<ResponseTiming> answered;
  std::vector<std::thread> workers;  // reactor thread only (handle)
};

class ResponseTimingServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::warn); }
  void start(int max_inflight = 100) {
    ServerOptions o;
    o.listeners[0].port = 0;
    o.threads = 1;
    o.max_inflight_per_connection = max_inflight;
    server_ = std::make_unique<Server>(o, handler_);
    Status st = server_->start();
    ASSERT_TRUE(st.is_ok()) << st.message();
  }
  void TearDown() override {
    if (server_) server_->stop();
  }

  TimingHandler handler_;
  std::unique_ptr<Server> server_;
};

// Every report's stamps are in order and its total is the whole span.
void expect_consistent(const ResponseTiming& t) {
  EXPECT_GT(t.received_ns, 0);
  EXPECT_LE(t.received_ns, t.handled_ns);
  EXPECT_LE(t.handled_ns, t.sent_ns);
  EXPECT_LE(t.ready_ns, t.sent_ns);
  EXPECT_EQ(t.total_ns(), t.sent_ns - t.received_ns);
  EXPECT_GE(t.total_ns(), t.remote_ns() + t.send_ns());
}

TEST_F(ResponseTimingServerTest, EachAnswerIsReportedWithItsStagesInRequestOrder) {
  start();
  TestClient c(server_->port());
  ASSERT_TRUE(c.connected());
  // One burst: the parked answer holds back the two behind it.
  ASSERT_TRUE(c.send_raw(TestClient::frame("p1") + TestClient::frame("n2") + TestClient::frame("z3")));
  EXPECT_EQ(c.read_frame(), "p1");
  EXPECT_EQ(c.read_frame(), "n2");
  ASSERT_TRUE(wait_until([&] { return handler_.answered_count() == 3; }));

  std::lock_guard lock(handler_.mu);
  ASSERT_EQ(handler_.received.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_GT(handler_.received[i], 0);
    EXPECT_LE(handler_.received[i], handler_.handle_started[i]);  // queue time >= 0
  }
  // The written answers in request order; the no_response is settled when
  // its turn comes, before the answers ahead of it are written.
  const auto& none = handler_.answered[0];
  const auto& parked = handler_.answered[1];
  const auto& now = handler_.answered[2];
  EXPECT_EQ(none.tag, 'z');
  EXPECT_EQ(parked.tag, 'p');
  EXPECT_EQ(now.tag, 'n');
  for (const auto* t : {&parked, &now, &none}) expect_consistent(*t);
  EXPECT_EQ(parked.received_ns, handler_.received[0]);
  // The parked answer waited in remote time; the quick one waited behind it
  // in send time (answered inside handle: no remote time).
  EXPECT_GE(parked.remote_ns(), 55 * kMs);
  EXPECT_EQ(now.remote_ns(), 0);
  EXPECT_GE(now.send_ns(), 40 * kMs);
  EXPECT_GE(none.sent_ns, parked.ready_ns);  // its turn came after the parked answer
}

TEST_F(ResponseTimingServerTest, AFrameHeldInTheReadBufferCountsItsWaitFromItsRead) {
  start(/*max_inflight=*/1);
  TestClient c(server_->port());
  ASSERT_TRUE(c.connected());
  // Both frames arrive in one read; the second waits in the buffer until the
  // parked first is answered (the in-flight limit pauses the connection).
  ASSERT_TRUE(c.send_raw(TestClient::frame("p1") + TestClient::frame("n2")));
  EXPECT_EQ(c.read_frame(), "p1");
  EXPECT_EQ(c.read_frame(), "n2");
  ASSERT_TRUE(wait_until([&] { return handler_.answered_count() == 2; }));

  std::lock_guard lock(handler_.mu);
  ASSERT_EQ(handler_.received.size(), 2u);
  EXPECT_EQ(handler_.received[1], handler_.received[0]);  // one read
  EXPECT_GE(handler_.handle_started[1] - handler_.received[1], 55 * kMs);
  for (const auto& t : handler_.answered) expect_consistent(t);
  EXPECT_GE(handler_.answered[1].total_ns(), 55 * kMs);
}

TEST_F(ResponseTimingServerTest, ClosedRequestsAreNotReported) {
  start();
  TestClient c(server_->port());
  ASSERT_TRUE(c.send_raw(TestClient::frame("n1") + TestClient::frame("c2")));
  EXPECT_EQ(c.read_frame(), "n1");
  EXPECT_TRUE(c.closed_by_peer());
  ASSERT_TRUE(wait_until([&] { return handler_.answered_count() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::lock_guard lock(handler_.mu);
  ASSERT_EQ(handler_.answered.size(), 1u);
  EXPECT_EQ(handler_.answered[0].tag, 'n');
}

}  // namespace
}  // namespace spool::net
