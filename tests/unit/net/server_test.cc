// Unit tests of the net layer over real loopback sockets with a fake handler.
#include "net/server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <spdlog/spdlog.h>

#include "test_client.h"

namespace spool::net {
namespace {

using testing::TestClient;
using testing::wait_until;

std::string to_string(const Bytes& b) { return {b.begin(), b.end()}; }
Bytes to_bytes(std::string_view s) { return {s.begin(), s.end()}; }
// Built with += rather than operator+ on temporaries: GCC 12 at -O3 emits a
// false -Wrestrict for `"r" + std::to_string(i)`.
std::string tag(std::string_view prefix, int i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

class TestHandler : public RequestHandler {
 public:
  using Fn = std::function<void(const ConnectionInfo&, Bytes, Responder)>;
  Fn fn;  // default: echo on the reactor thread
  std::atomic<int> requests{0};
  std::atomic<int> disconnects{0};

  void handle(const ConnectionInfo& conn, FrameBytes frame, Responder responder) override {
    ++requests;
    Bytes body(frame.begin(), frame.end());
    if (fn) {
      fn(conn, std::move(body), std::move(responder));
    } else {
      responder.send(std::move(body));
    }
  }
  void on_disconnect(const ConnectionInfo&) override { ++disconnects; }
};

// Answers from other threads; joins them on destruction.
class Workers {
 public:
  ~Workers() { join(); }
  void run(std::function<void()> fn) {
    std::lock_guard lock(mu_);
    threads_.emplace_back(std::move(fn));
  }
  void join() {
    std::vector<std::thread> ts;
    {
      std::lock_guard lock(mu_);
      ts.swap(threads_);
    }
    for (auto& t : ts) t.join();
  }

 private:
  std::mutex mu_;
  std::vector<std::thread> threads_;
};

ServerOptions test_options() {
  ServerOptions o;
  o.listeners[0].port = 0;
  o.threads = 2;
  return o;
}

class NetServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::warn); }

  void start(ServerOptions options = test_options()) {
    server_ = std::make_unique<Server>(options, handler_);
    Status st = server_->start();
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_NE(server_->port(), 0);
  }
  uint16_t port() const { return server_->port(); }

  TestHandler handler_;
  std::unique_ptr<Server> server_;
};

TEST_F(NetServerTest, EchoesFrames) {
  start();
  TestClient c(port());
  ASSERT_TRUE(c.connected());
  for (std::string body : {std::string("hello"), std::string("x"), std::string(5000, 'z')}) {
    ASSERT_TRUE(c.send_frame(body));
    EXPECT_EQ(c.read_frame(), body);
  }
}

TEST_F(NetServerTest, DeferredAcceptAnswersNothingUntilStartAccepting) {
  ServerOptions o = test_options();
  o.accept_on_start = false;
  start(o);
  TestClient c(port(), 500);  // the kernel's backlog completes the connection
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.send_frame("early"));
  EXPECT_EQ(c.read_frame(), std::nullopt);  // read timeout: nothing was read or answered
  EXPECT_EQ(handler_.requests.load(), 0);
  EXPECT_EQ(server_->connection_count(), 0u);
  server_->start_accepting();
  server_->start_accepting();  // a second call changes nothing
  TestClient patient(port(), 3000);
  ASSERT_TRUE(c.send_frame("late"));
  EXPECT_EQ(c.read_frame(), "early");  // the waiting connection is served, in order
  EXPECT_EQ(c.read_frame(), "late");
  ASSERT_TRUE(patient.send_frame("new"));
  EXPECT_EQ(patient.read_frame(), "new");
}

TEST_F(NetServerTest, LargeFrameBeyondReadBufferAndExactlyAtLimit) {
  auto o = test_options();
  o.max_request_bytes = 1 << 20;
  start(o);
  TestClient c(port());
  std::string big(1 << 20, 'b');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31);
  ASSERT_TRUE(c.send_frame(big));
  ASSERT_TRUE(c.send_frame("after"));
  EXPECT_EQ(c.read_frame(), big);
  EXPECT_EQ(c.read_frame(), "after");
}

TEST_F(NetServerTest, PipelinedAnswersStayInRequestOrder) {
  Workers workers;
  handler_.fn = [&](const ConnectionInfo&, Bytes frame, Responder r) {
    // The first request is answered last, from another thread.
    int delay_ms = to_string(frame) == "slow" ? 150 : 0;
    workers.run([r, frame = std::move(frame), delay_ms]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      r.send(std::move(frame));
    });
  };
  start();
  TestClient c(port());
  std::string burst = TestClient::frame("slow");
  for (int i = 0; i < 10; ++i) burst += TestClient::frame(tag("r", i));
  ASSERT_TRUE(c.send_raw(burst));
  EXPECT_EQ(c.read_frame(), "slow");
  for (int i = 0; i < 10; ++i) EXPECT_EQ(c.read_frame(), tag("r", i));
}

TEST_F(NetServerTest, NoResponseWritesNothingAndKeepsOrder) {
  Workers workers;
  handler_.fn = [&](const ConnectionInfo&, Bytes frame, Responder r) {
    std::string s = to_string(frame);
    if (s == "acks0") {
      workers.run([r]() mutable {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        r.no_response();
      });
    } else {
      r.send(std::move(frame));
    }
  };
  start();
  TestClient c(port());
  ASSERT_TRUE(c.send_raw(TestClient::frame("a") + TestClient::frame("acks0") + TestClient::frame("b")));
  EXPECT_EQ(c.read_frame(), "a");
  EXPECT_EQ(c.read_frame(), "b");
  EXPECT_TRUE(c.quiet_for(100));
  ASSERT_TRUE(c.send_frame("acks0"));
  EXPECT_TRUE(c.quiet_for(150));
  ASSERT_TRUE(c.send_frame("c"));
  EXPECT_EQ(c.read_frame(), "c");
}

TEST_F(NetServerTest, BadFrameSizeClosesOnlyThatConnection) {
  auto o = test_options();
  o.max_request_bytes = 1024;
  start(o);
  TestClient good(port());
  ASSERT_TRUE(good.send_frame("hi"));
  ASSERT_EQ(good.read_frame(), "hi");

  for (int32_t bad : {1025, 0, -1, INT32_MIN}) {
    TestClient c(port());
    ASSERT_TRUE(c.send_raw(TestClient::encode_size(bad)));
    EXPECT_TRUE(c.closed_by_peer()) << "size " << bad;
  }
  // A connection that was fine until then is closed at its first bad frame
  // (like Kafka, answers still pending at that moment are dropped).
  TestClient c(port());
  ASSERT_TRUE(c.send_frame("ok"));
  EXPECT_EQ(c.read_frame(), "ok");
  ASSERT_TRUE(c.send_raw(TestClient::encode_size(4096)));
  EXPECT_TRUE(c.closed_by_peer());

  ASSERT_TRUE(good.send_frame("still"));
  EXPECT_EQ(good.read_frame(), "still");
  EXPECT_TRUE(wait_until([&] { return server_->connection_count() == 1; }));
}

TEST_F(NetServerTest, TruncatedFrameThenEofIsHandled) {
  start();
  {
    TestClient c(port());
    ASSERT_TRUE(c.send_raw(TestClient::encode_size(100) + "only ten b"));
    c.shutdown_write();
    EXPECT_TRUE(c.closed_by_peer());
  }
  {
    TestClient c(port());  // EOF inside the size prefix
    ASSERT_TRUE(c.send_raw(std::string("\0\0", 2)));
    c.shutdown_write();
    EXPECT_TRUE(c.closed_by_peer());
  }
  EXPECT_TRUE(wait_until([&] { return handler_.disconnects == 2; }));
  EXPECT_EQ(handler_.requests, 0);
  TestClient c(port());
  ASSERT_TRUE(c.send_frame("alive"));
  EXPECT_EQ(c.read_frame(), "alive");
}

TEST_F(NetServerTest, HalfClosedPeerStillGetsItsAnswers) {
  Workers workers;
  handler_.fn = [&](const ConnectionInfo&, Bytes frame, Responder r) {
    workers.run([r, frame = std::move(frame)]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      r.send(std::move(frame));
    });
  };
  start();
  TestClient c(port());
  ASSERT_TRUE(c.send_raw(TestClient::frame("one") + TestClient::frame("two")));
  c.shutdown_write();
  EXPECT_EQ(c.read_frame(), "one");
  EXPECT_EQ(c.read_frame(), "two");
  EXPECT_TRUE(c.closed_by_peer());
}

TEST_F(NetServerTest, MaxConnectionsEnforced) {
  auto o = test_options();
  o.connection_limits.max_connections = 2;
  start(o);
  auto a = std::make_unique<TestClient>(port());
  TestClient b(port());
  ASSERT_TRUE(a->send_frame("a"));
  ASSERT_TRUE(b.send_frame("b"));
  ASSERT_EQ(a->read_frame(), "a");
  ASSERT_EQ(b.read_frame(), "b");
  EXPECT_EQ(server_->connection_count(), 2u);

  TestClient c(port());  // the TCP handshake succeeds, then the server closes it
  EXPECT_TRUE(c.closed_by_peer());
  EXPECT_EQ(server_->connection_count(), 2u);

  a.reset();
  ASSERT_TRUE(wait_until([&] { return server_->connection_count() == 1; }));
  TestClient d(port());
  ASSERT_TRUE(d.send_frame("d"));
  EXPECT_EQ(d.read_frame(), "d");
}

TEST_F(NetServerTest, IdleConnectionsAreClosedBusyOnesAreNot) {
  auto o = test_options();
  o.idle_timeout_ms = 150;
  start(o);
  TestClient idle(port());
  TestClient busy(port());
  ASSERT_TRUE(idle.send_frame("x"));
  ASSERT_EQ(idle.read_frame(), "x");
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(400);
  while (std::chrono::steady_clock::now() < until) {
    ASSERT_TRUE(busy.send_frame("ping"));
    ASSERT_EQ(busy.read_frame(), "ping");
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  EXPECT_TRUE(idle.closed_by_peer(0));
  EXPECT_TRUE(busy.quiet_for(0));
  EXPECT_TRUE(busy.closed_by_peer(1000));
  EXPECT_TRUE(wait_until([&] { return handler_.disconnects == 2; }));
}

// The idle decision reads ServerOptions::clock: a clock that stands still
// keeps a silent connection open well past the timeout in real time, and
// moving it past the timeout closes the connection at the next check.
TEST_F(NetServerTest, IdleTimeoutFollowsTheInjectedClock) {
  auto clock = std::make_shared<ManualClock>(5000);
  auto o = test_options();
  o.idle_timeout_ms = 60;
  o.clock = clock;
  start(o);
  TestClient c(port());
  ASSERT_TRUE(c.send_frame("x"));
  ASSERT_EQ(c.read_frame(), "x");
  EXPECT_TRUE(c.quiet_for(300));  // 5x the timeout in real time, 0 ms on the clock
  clock->advance(59);
  EXPECT_TRUE(c.quiet_for(150));  // 1 ms short of idle
  clock->advance(1);
  EXPECT_TRUE(c.closed_by_peer(1000));
  EXPECT_TRUE(wait_until([&] { return handler_.disconnects == 1; }));
}

TEST_F(NetServerTest, PendingRequestIsNotIdle) {
  auto o = test_options();
  o.idle_timeout_ms = 100;
  std::mutex mu;
  std::vector<Responder> held;
  handler_.fn = [&](const ConnectionInfo&, Bytes, Responder r) {
    std::lock_guard lock(mu);
    held.push_back(std::move(r));
  };
  start(o);
  TestClient c(port());
  ASSERT_TRUE(c.send_frame("long poll"));
  EXPECT_TRUE(c.quiet_for(300));
  {
    std::lock_guard lock(mu);
    ASSERT_EQ(held.size(), 1u);
    held[0].send(to_bytes("done"));
  }
  EXPECT_EQ(c.read_frame(), "done");
}

TEST_F(NetServerTest, BackPressureStopsReadingAtInflightLimit) {
  auto o = test_options();
  o.max_inflight_per_connection = 2;
  std::mutex mu;
  std::vector<Responder> held;
  std::vector<std::string> frames;
  handler_.fn = [&](const ConnectionInfo&, Bytes frame, Responder r) {
    std::lock_guard lock(mu);
    held.push_back(std::move(r));
    frames.push_back(to_string(frame));
  };
  start(o);
  TestClient c(port());
  std::string burst;
  for (int i = 0; i < 5; ++i) burst += TestClient::frame(std::to_string(i));
  ASSERT_TRUE(c.send_raw(burst));
  ASSERT_TRUE(wait_until([&] { return handler_.requests == 2; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(handler_.requests, 2);
  for (int answered = 0; answered < 5; ++answered) {
    ASSERT_TRUE(wait_until([&] {
      std::lock_guard lock(mu);
      return static_cast<int>(held.size()) > answered;
    }));
    {
      std::lock_guard lock(mu);
      held[answered].send(to_bytes(frames[answered]));
    }
    EXPECT_EQ(c.read_frame(), std::to_string(answered));
  }
}

TEST_F(NetServerTest, HandlerCloseFlushesEarlierAnswersFirst) {
  Workers workers;
  handler_.fn = [&](const ConnectionInfo&, Bytes frame, Responder r) {
    std::string s = to_string(frame);
    if (s == "bye") {
      r.close("test asked to close");
    } else {
      workers.run([r, frame = std::move(frame)]() mutable {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        r.send(std::move(frame));
      });
    }
  };
  start();
  TestClient c(port());
  ASSERT_TRUE(c.send_raw(TestClient::frame("first") + TestClient::frame("bye") + TestClient::frame("lost")));
  EXPECT_EQ(c.read_frame(), "first");
  EXPECT_TRUE(c.closed_by_peer());
  EXPECT_TRUE(wait_until([&] { return handler_.disconnects == 1; }));
}

TEST_F(NetServerTest, DroppedResponderOrThrowingHandlerClosesConnection) {
  handler_.fn = [&](const ConnectionInfo&, Bytes frame, Responder r) {
    std::string s = to_string(frame);
    if (s == "drop") return;  // never answered
    if (s == "throw") throw std::runtime_error("boom");
    r.send(std::move(frame));
    r.send(to_bytes("second answer is ignored"));
  };
  start();
  TestClient a(port());
  ASSERT_TRUE(a.send_raw(TestClient::frame("x") + TestClient::frame("drop")));
  EXPECT_EQ(a.read_frame(), "x");
  EXPECT_TRUE(a.closed_by_peer());
  TestClient b(port());
  ASSERT_TRUE(b.send_frame("throw"));
  EXPECT_TRUE(b.closed_by_peer());
  TestClient c(port());
  ASSERT_TRUE(c.send_frame("y"));
  EXPECT_EQ(c.read_frame(), "y");
  EXPECT_TRUE(c.quiet_for(50));
}

TEST_F(NetServerTest, StopWithOpenConnectionsIsCleanAndResponderOutlivesServer) {
  std::mutex mu;
  std::vector<Responder> held;
  handler_.fn = [&](const ConnectionInfo&, Bytes, Responder r) {
    std::lock_guard lock(mu);
    held.push_back(std::move(r));
  };
  start();
  TestClient a(port()), b(port()), c(port());
  ASSERT_TRUE(a.send_frame("pending"));
  ASSERT_TRUE(wait_until([&] { return handler_.requests == 1; }));
  ASSERT_TRUE(wait_until([&] { return server_->connection_count() == 3; }));
  server_->stop();
  server_->stop();  // idempotent
  EXPECT_EQ(server_->connection_count(), 0u);
  EXPECT_EQ(handler_.disconnects, 3);
  EXPECT_TRUE(a.closed_by_peer());
  EXPECT_TRUE(b.closed_by_peer());
  EXPECT_TRUE(c.closed_by_peer());
  server_.reset();
  std::lock_guard lock(mu);
  ASSERT_EQ(held.size(), 1u);
  held[0].send(to_bytes("too late"));  // no-op, must not crash
  held.clear();
}

TEST_F(NetServerTest, StopDoesNotWaitForWorkParkedOnTheReactor) {
  // A handler that parks a request on a long timer on the connection's
  // reactor (a delayed fetch) must not hold up stop().
  handler_.fn = [&](const ConnectionInfo&, Bytes, Responder r) {
    auto timer = std::make_shared<asio::steady_timer>(r.executor(), std::chrono::seconds(30));
    timer->async_wait([timer, r](const std::error_code&) mutable { r.send(to_bytes("late")); });
  };
  start();
  TestClient c(port());
  ASSERT_TRUE(c.send_frame("park"));
  ASSERT_TRUE(wait_until([&] { return handler_.requests == 1; }));
  auto t0 = std::chrono::steady_clock::now();
  server_->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_TRUE(c.closed_by_peer());
  server_.reset();
}

TEST_F(NetServerTest, PeerResetWithAnswersPendingIsHarmless) {
  Workers workers;
  handler_.fn = [&](const ConnectionInfo&, Bytes frame, Responder r) {
    workers.run([r, frame = std::move(frame)]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      r.send(Bytes(256 * 1024, 'r'));
    });
  };
  start();
  for (int i = 0; i < 5; ++i) {
    TestClient c(port());
    std::string burst;
    for (int j = 0; j < 8; ++j) burst += TestClient::frame("req");
    ASSERT_TRUE(c.send_raw(burst));
    c.reset_connection();
  }
  workers.join();
  EXPECT_TRUE(wait_until([&] { return handler_.disconnects == 5; }));
  EXPECT_EQ(server_->connection_count(), 0u);
  TestClient ok(port());
  ASSERT_TRUE(ok.send_frame("still here"));
  EXPECT_EQ(ok.read_frame()->size(), 256u * 1024);
}

TEST_F(NetServerTest, StartFailsWhenPortIsTaken) {
  start();
  auto o = test_options();
  o.listeners[0].port = port();
  TestHandler other;
  Server second(o, other);
  Status st = second.start();
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("cannot listen"), std::string::npos) << st.message();
  second.stop();

  o.listeners[0].host = "not a host name!";
  o.listeners[0].port = 0;
  Server third(o, other);
  EXPECT_FALSE(third.start().is_ok());
}

TEST_F(NetServerTest, EveryListenerAcceptsAndItsConnectionsKnowWhich) {
  ServerOptions o = test_options();
  o.listeners = {{"CLIENT", "127.0.0.1", 0}, {"REPLICATION", "127.0.0.1", 0}, {"ADMIN", "127.0.0.1", 0}};
  handler_.fn = [](const ConnectionInfo& c, Bytes frame, Responder r) {
    r.send(to_bytes(tag(to_string(frame) + " on ", static_cast<int>(c.listener))));
  };
  start(o);
  std::set<uint16_t> ports;
  for (size_t i = 0; i < 3; ++i) ports.insert(server_->port(i));
  EXPECT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports.count(0), 0u);
  EXPECT_EQ(server_->port(3), 0);  // past the listeners
  for (int i : {2, 0, 1}) {
    TestClient c(server_->port(static_cast<size_t>(i)));
    ASSERT_TRUE(c.send_frame("hello"));
    EXPECT_EQ(c.read_frame(), tag("hello on ", i));
  }
}

TEST_F(NetServerTest, MaxConnectionsCountsEveryListener) {
  ServerOptions o = test_options();
  o.listeners = {{"A", "127.0.0.1", 0}, {"B", "127.0.0.1", 0}};
  o.connection_limits.max_connections = 1;
  start(o);
  TestClient a(server_->port(0));
  ASSERT_TRUE(a.send_frame("one"));
  EXPECT_EQ(a.read_frame(), "one");
  TestClient b(server_->port(1), 500);
  b.send_frame("two");
  EXPECT_EQ(b.read_frame(), std::nullopt);  // closed at accept: the limit is the server's
}

TEST_F(NetServerTest, PerAddressLimitClosesConnectionsOverIt) {
  ServerOptions o = test_options();
  o.connection_limits.max_per_ip = 2;
  start(o);
  TestClient a(port()), b(port());
  ASSERT_TRUE(a.send_frame("a"));
  ASSERT_TRUE(b.send_frame("b"));
  EXPECT_EQ(a.read_frame(), "a");
  EXPECT_EQ(b.read_frame(), "b");
  TestClient c(port(), 500);
  c.send_frame("c");
  EXPECT_EQ(c.read_frame(), std::nullopt);  // 127.0.0.1 already has 2
  // An override for the address, applied live, lets one more in.
  server_->set_connection_limits({INT32_MAX, 2, {{"127.0.0.1", 3}}});
  TestClient d(port());
  ASSERT_TRUE(d.send_frame("d"));
  EXPECT_EQ(d.read_frame(), "d");
  EXPECT_EQ(server_->connection_count(), 3u);
}

TEST_F(NetServerTest, ALaterListenerThatCannotBindLeavesNothingListening) {
  start();  // takes a port
  ServerOptions o = test_options();
  o.listeners = {{"FREE", "127.0.0.1", 0}, {"TAKEN", "127.0.0.1", port()}};
  TestHandler other;
  Server second(o, other);
  Status st = second.start();
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("listener TAKEN"), std::string::npos) << st.message();
  EXPECT_EQ(second.port(0), 0);
  o.listeners.clear();
  Server none(o, other);
  EXPECT_FALSE(none.start().is_ok());
}

TEST_F(NetServerTest, ManyConcurrentClientsAllAnsweredCorrectly) {
  Workers workers;
  std::atomic<int> n{0};
  handler_.fn = [&](const ConnectionInfo&, Bytes frame, Responder r) {
    // Mix synchronous answers and answers from another thread.
    if (n++ % 7 == 0) {
      asio::post(r.executor(), [r, frame = std::move(frame)]() mutable { r.send(std::move(frame)); });
    } else {
      r.send(std::move(frame));
    }
  };
  start();
  constexpr int kClients = 20;
  constexpr int kRequests = 200;
  constexpr int kWindow = 10;
  auto body = [](int id, int i) {
    std::string s = tag("", id);
    s += '/';
    s += std::to_string(i);
    s.append(static_cast<size_t>(i % 50), '.');  // varied sizes
    return s;
  };
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int id = 0; id < kClients; ++id) {
    clients.emplace_back([&, id] {
      TestClient c(port());
      if (!c.connected()) {
        ++failures;
        return;
      }
      for (int base = 0; base < kRequests; base += kWindow) {
        std::string burst;
        for (int i = base; i < base + kWindow; ++i) {
          burst += TestClient::frame(body(id, i));
        }
        if (!c.send_raw(burst)) {
          ++failures;
          return;
        }
        for (int i = base; i < base + kWindow; ++i) {
          auto got = c.read_frame();
          if (got != body(id, i)) {
            ++failures;
            return;
          }
        }
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(handler_.requests, kClients * kRequests);
}

}  // namespace
}  // namespace spool::net
