// NetworkClient's transport against FakeBroker (fake_broker.h): pipelining
// and response order, correlation mismatch, oversized responses, timeouts,
// connect timeouts, lost connections, reconnect backoff, shutdown with
// pending work, callbacks that send or throw. Every wait is bounded.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "client/network_client.h"
#include "client_test_support.h"
#include "fake_broker.h"

namespace spool::client {
namespace {

using testing::Action;
using testing::Clock;
using testing::Collector;
using testing::FakeBroker;
using testing::ReceivedRequest;
using testing::dead_port;
using testing::fast_options;
using testing::hex;
using testing::hex32;
using testing::kMetadata;
using testing::kNetworkException;
using testing::kRequestTimedOut;
using testing::kUnsupportedVersion;
using testing::ms;
using testing::node_of;
using testing::raw;
using testing::text;

// ------------------------------------------------------- pipelining, order

TEST(NetworkClient, PipelinesRequestsAndDeliversResponsesInOrder) {
  FakeBroker broker;
  // The first answer is held back 300 ms; the rest follow it in order.
  broker.set_script([](const ReceivedRequest& req) {
    const bool first = text(req.body) == "r0";
    return Action::write(testing::response_frame(req.header.api_key, req.header.api_version, req.header.correlation_id,
                                                 as_span("re:" + text(req.body))),
                         first ? 300 : 0);
  });
  NetworkClient client(fast_options());
  Collector<RawResponse> got;
  constexpr int kN = 6;
  for (int i = 0; i < kN; ++i) client.send(node_of(broker), raw(kMetadata, 0, 12, "r" + std::to_string(i)), got.callback());
  ASSERT_TRUE(got.wait(kN));
  for (int i = 0; i < kN; ++i) {
    ASSERT_TRUE(got.at(i)) << got.at(i).status().message();
    EXPECT_EQ(text(got.at(i)->body()), "re:r" + std::to_string(i));
  }
  auto user = broker.user_requests();
  ASSERT_EQ(user.size(), static_cast<size_t>(kN));
  for (int i = 0; i < kN; ++i) {
    EXPECT_EQ(text(user[i].body), "r" + std::to_string(i));
    if (i > 0) {
      EXPECT_EQ(user[i].header.correlation_id, user[i - 1].header.correlation_id + 1);
    }
    // Pipelined: every request was on the wire before the first answer.
    EXPECT_LT(ms(user[i].at - user[0].at), 250) << "request " << i;
  }
  EXPECT_EQ(broker.accepts().size(), 1u);
}

// --------------------------------------------------- protocol violations

TEST(NetworkClient, CorrelationMismatchClosesAndFailsEverythingInFlight) {
  FakeBroker broker;
  broker.set_script([](const ReceivedRequest& req) {
    if (text(req.body) != "bad") return Action::ignore();
    return Action::write(testing::response_frame(req.header.api_key, req.header.api_version,
                                                 req.header.correlation_id + 100, as_span("x")));
  });
  NetworkClient client(fast_options());
  Collector<RawResponse> got;
  client.send(node_of(broker), raw(kMetadata, 0, 12, "wait"), got.callback());
  ASSERT_TRUE(broker.wait_for([&] { return broker.user_requests().size() == 1; }));
  client.send(node_of(broker), raw(kMetadata, 0, 12, "bad"), got.callback());
  ASSERT_TRUE(got.wait(2));
  auto user = broker.user_requests();
  ASSERT_EQ(user.size(), 2u);
  const int32_t expected = user[0].header.correlation_id;  // the oldest in flight
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_FALSE(got.at(i));
    EXPECT_EQ(got.at(i).status().kafka_code(), kNetworkException);
    EXPECT_NE(got.at(i).status().message().find("response correlation id " +
                                                std::to_string(user[1].header.correlation_id + 100) +
                                                " does not match request " + std::to_string(expected)),
              std::string::npos)
        << got.at(i).status().message();
  }
  EXPECT_TRUE(broker.wait_for([&] { return broker.peer_closes() == 1; }));
}

TEST(NetworkClient, OversizedOrUndersizedResponseIsRefusedBeforeAllocation) {
  for (int32_t size : {1 << 30, 1025, 3, -7}) {
    SCOPED_TRACE(size);
    FakeBroker broker;
    broker.set_script([size](const ReceivedRequest&) {
      ByteWriter w;
      w.i32(size);  // only the size: the client must refuse it from that alone
      return Action::write(w.take());
    });
    NetworkClientOptions o = fast_options();
    o.max_response_bytes = 1024;
    NetworkClient client(o);
    Collector<RawResponse> got;
    client.send(node_of(broker), raw(kMetadata, 0, 12, "q"), got.callback());
    ASSERT_TRUE(got.wait(1));
    ASSERT_FALSE(got.at(0));
    EXPECT_EQ(got.at(0).status().kafka_code(), kNetworkException);
    const std::string want = size > 1024 ? "response size " + std::to_string(size) +
                                               " exceeds the limit of 1024 bytes"
                                         : "invalid response size " + std::to_string(size) + " (below 4)";
    EXPECT_NE(got.at(0).status().message().find(want), std::string::npos) << got.at(0).status().message();
  }
}

TEST(NetworkClient, ResponseWithoutARequestInFlightCloses) {
  FakeBroker broker;
  broker.set_script([](const ReceivedRequest& req) {
    // Two answers to one request.
    Bytes one = testing::response_frame(req.header.api_key, req.header.api_version, req.header.correlation_id,
                                        as_span("a"));
    Bytes two = one;
    one.insert(one.end(), two.begin(), two.end());
    return Action::write(one);
  });
  NetworkClient client(fast_options());
  Collector<RawResponse> got;
  client.send(node_of(broker), raw(kMetadata, 0, 12, "q"), got.callback());
  ASSERT_TRUE(got.wait(1));
  ASSERT_TRUE(got.at(0));
  EXPECT_TRUE(broker.wait_for([&] { return broker.peer_closes() == 1; }));
}

// ---------------------------------------------------------------- timeouts

TEST(NetworkClient, InFlightTimeoutFailsWithRequestTimedOutAndClosesTheConnection) {
  FakeBroker broker;
  broker.set_script([](const ReceivedRequest& req) {
    if (text(req.body) == "slow") return Action::ignore();
    return Action::write(testing::response_frame(req.header.api_key, req.header.api_version,
                                                 req.header.correlation_id, req.body), 5000);
  });
  NetworkClient client(fast_options());
  Collector<RawResponse> got;
  const auto t0 = Clock::now();
  client.send(node_of(broker), raw(kMetadata, 0, 12, "slow", 300), got.callback());
  client.send(node_of(broker), raw(kMetadata, 0, 12, "other", 2500), got.callback());
  ASSERT_TRUE(got.wait(2));
  ASSERT_FALSE(got.at(0));
  EXPECT_EQ(got.at(0).status().kafka_code(), kRequestTimedOut);
  EXPECT_EQ(got.at(0).status().message(),
            "Metadata (api key 3) request to node 1 (127.0.0.1:" + std::to_string(broker.port()) +
                ") timed out after 300 ms");
  EXPECT_GE(ms(got.time(0) - t0), 300);
  EXPECT_LT(ms(got.time(0) - t0), 2000);
  // The other one fails with the connection, well before its own 2.5 s.
  ASSERT_FALSE(got.at(1));
  EXPECT_EQ(got.at(1).status().kafka_code(), kNetworkException);
  EXPECT_NE(got.at(1).status().message().find("timed out after 300 ms"), std::string::npos);
  EXPECT_LT(ms(got.time(1) - t0), 2000);
  EXPECT_TRUE(broker.wait_for([&] { return broker.peer_closes() == 1; }));
}

// A listener whose accept queue is full: further connects hang (Linux
// drops their SYNs), so only the connect timeout ends them.
class FullListener {
 public:
  FullListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 0), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    for (int i = 0; i < 3; ++i) {  // fill the queue; never accepted
      int c = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      ::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a);
      fillers_.push_back(c);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ~FullListener() {
    for (int c : fillers_) ::close(c);
    ::close(fd_);
  }
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
  std::vector<int> fillers_;
};

TEST(NetworkClient, ConnectTimeoutFailsTheWaitingRequests) {
  FullListener full;
  NetworkClientOptions o = fast_options();
  o.connect_timeout_ms = 300;
  NetworkClient client(o);
  const Node node{4, "127.0.0.1", full.port()};
  Collector<RawResponse> got;
  const auto t0 = Clock::now();
  client.send(node, raw(kMetadata, 0, 12, "a", 5000), got.callback());
  client.send(node, raw(kMetadata, 0, 12, "b", 5000), got.callback());
  ASSERT_TRUE(got.wait(2));
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_FALSE(got.at(i));
    EXPECT_EQ(got.at(i).status().kafka_code(), kNetworkException);
    EXPECT_EQ(got.at(i).status().message(), "cannot connect to node 4 (127.0.0.1:" + std::to_string(full.port()) +
                                                "): timed out after 300 ms");
  }
  EXPECT_GE(ms(got.time(0) - t0), 300);
  EXPECT_LT(ms(got.time(0) - t0), 3000);
}

TEST(NetworkClient, RequestWaitingOutABackoffTimesOutAloneWithoutConnecting) {
  NetworkClientOptions o = fast_options();
  o.reconnect_backoff_ms = 5000;
  o.reconnect_backoff_max_ms = 5000;
  NetworkClient client(o);
  const Node dead{2, "127.0.0.1", dead_port()};
  Collector<RawResponse> got;
  client.send(dead, raw(kMetadata, 0, 12, "a"), got.callback());
  ASSERT_TRUE(got.wait(1));
  ASSERT_FALSE(got.at(0));
  EXPECT_EQ(got.at(0).status().kafka_code(), kNetworkException);
  EXPECT_NE(got.at(0).status().message().find("cannot connect to node 2 (127.0.0.1:"), std::string::npos)
      << got.at(0).status().message();
  // The next send waits for the 5 s backoff; its own 200 ms deadline ends first.
  const auto t0 = Clock::now();
  client.send(dead, raw(kMetadata, 0, 12, "b", 200), got.callback());
  ASSERT_TRUE(got.wait(2));
  ASSERT_FALSE(got.at(1));
  EXPECT_EQ(got.at(1).status().kafka_code(), kRequestTimedOut);
  EXPECT_GE(ms(got.time(1) - t0), 200);
  EXPECT_LT(ms(got.time(1) - t0), 3000);
}

TEST(NetworkClient, HandshakeTimeoutFailsQueuedRequests) {
  FakeBroker broker;
  broker.set_script([](const ReceivedRequest&) { return Action::ignore(); }, true);
  NetworkClientOptions o = fast_options();
  o.request_timeout_ms = 300;
  NetworkClient client(o);
  Collector<RawResponse> got;
  client.send(node_of(broker), raw(kMetadata, 0, 12, "a", 4000), got.callback());
  ASSERT_TRUE(got.wait(1));
  ASSERT_FALSE(got.at(0));
  EXPECT_EQ(got.at(0).status().kafka_code(), kNetworkException);
  EXPECT_NE(got.at(0).status().message().find("ApiVersions handshake with node 1"), std::string::npos)
      << got.at(0).status().message();
}

// --------------------------------------------------- disconnect, backoff

TEST(NetworkClient, LostConnectionFailsEveryRequestInFlight) {
  FakeBroker broker;
  broker.set_script([](const ReceivedRequest& req) {
    return text(req.body) == "cut" ? Action::close() : Action::ignore();
  });
  // Only the cut may fail these: a slow machine (ASan, two busy cores) must
  // not let the short default timeout fire first.
  NetworkClientOptions o = fast_options();
  o.request_timeout_ms = 60000;
  NetworkClient client(o);
  Collector<RawResponse> got;
  client.send(node_of(broker), raw(kMetadata, 0, 12, "one"), got.callback());
  client.send(node_of(broker), raw(kMetadata, 0, 12, "two"), got.callback());
  ASSERT_TRUE(broker.wait_for([&] { return broker.user_requests().size() == 2; }));
  client.send(node_of(broker), raw(kMetadata, 0, 12, "cut"), got.callback());
  ASSERT_TRUE(got.wait(3));
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_FALSE(got.at(i));
    EXPECT_EQ(got.at(i).status().kafka_code(), kNetworkException);
    EXPECT_EQ(got.at(i).status().message(),
              "connection to node 1 (127.0.0.1:" + std::to_string(broker.port()) + ") lost: closed by the peer");
  }
}

TEST(NetworkClient, ReconnectsOnTheNextSendAfterAnExponentialBackoff) {
  FakeBroker broker;
  std::atomic<bool> healthy{false};
  // Unhealthy: every connection is cut at its ApiVersions (the handshake
  // fails, so failures accumulate); healthy: a normal broker.
  broker.set_script(
      [&](const ReceivedRequest& req) {
        if (!healthy) return Action::close();
        if (req.header.api_key == 18) return Action::write(testing::api_versions_answer(req, broker.ranges()));
        return Action::write(testing::response_frame(req.header.api_key, req.header.api_version,
                                                     req.header.correlation_id, req.body));
      },
      /*api_versions_too=*/true);
  NetworkClientOptions o = fast_options();
  o.reconnect_backoff_ms = 100;
  o.reconnect_backoff_max_ms = 300;
  NetworkClient client(o);
  Collector<RawResponse> got;
  // Failures 1..4 wait 100, 200, 300 (capped), 300 ms before the next connect.
  const int64_t waits[] = {100, 200, 300, 300};
  for (int i = 0; i < 5; ++i) {
    if (i == 4) healthy = true;
    client.send(node_of(broker), raw(kMetadata, 0, 12, "try" + std::to_string(i)), got.callback());
    ASSERT_TRUE(got.wait(static_cast<size_t>(i) + 1, 8000)) << i;
    EXPECT_EQ(static_cast<bool>(got.at(i)), i == 4) << i;
  }
  auto accepts = broker.accepts();
  ASSERT_EQ(accepts.size(), 5u);
  for (int i = 1; i < 5; ++i) {
    // The next connect comes no earlier than the backoff after the failure
    // was reported (the client computed it just before the callback).
    const int64_t gap = ms(accepts[i] - got.time(i - 1));
    EXPECT_GE(gap, waits[i - 1] - 5) << "attempt " << i;
    EXPECT_LT(gap, waits[i - 1] + 1500) << "attempt " << i;
  }
  // A completed handshake resets the backoff: the next loss waits 100 ms again.
  healthy = false;
  client.send(node_of(broker), raw(kMetadata, 0, 12, "again"), got.callback());
  ASSERT_TRUE(got.wait(6));
  EXPECT_FALSE(got.at(5));
  healthy = true;
  client.send(node_of(broker), raw(kMetadata, 0, 12, "back"), got.callback());
  ASSERT_TRUE(got.wait(7));
  ASSERT_TRUE(got.at(6)) << got.at(6).status().message();
  accepts = broker.accepts();
  ASSERT_EQ(accepts.size(), 6u) << "the lost connection of 'again' was the one of try4";
  const int64_t gap = ms(accepts[5] - got.time(5));
  EXPECT_GE(gap, 95);
  EXPECT_LT(gap, 1600);
}

TEST(NetworkClient, DisconnectFailsPendingAndReconnectsWithoutBackoff) {
  FakeBroker broker;
  broker.set_script([](const ReceivedRequest& req) {
    if (text(req.body) == "hang") return Action::ignore();
    return Action::write(testing::response_frame(req.header.api_key, req.header.api_version,
                                                 req.header.correlation_id, req.body));
  });
  NetworkClientOptions o = fast_options();
  o.reconnect_backoff_ms = 5000;
  o.reconnect_backoff_max_ms = 5000;
  NetworkClient client(o);
  Collector<RawResponse> got;
  client.send(node_of(broker), raw(kMetadata, 0, 12, "hang"), got.callback());
  ASSERT_TRUE(broker.wait_for([&] { return broker.user_requests().size() == 1; }));
  client.disconnect(node_of(broker));
  ASSERT_TRUE(got.wait(1));
  ASSERT_FALSE(got.at(0));
  EXPECT_EQ(got.at(0).status().kafka_code(), kNetworkException);
  EXPECT_NE(got.at(0).status().message().find("closed by the caller"), std::string::npos);
  const auto t0 = Clock::now();
  client.send(node_of(broker), raw(kMetadata, 0, 12, "next"), got.callback());
  ASSERT_TRUE(got.wait(2));
  ASSERT_TRUE(got.at(1)) << got.at(1).status().message();
  EXPECT_LT(ms(got.time(1) - t0), 2000) << "no 5 s backoff after a caller's disconnect";
  EXPECT_EQ(broker.accepts().size(), 2u);
}

// ---------------------------------------------------------------- shutdown

TEST(NetworkClient, ShutdownFailsPendingWorkAndRefusesLaterSends) {
  FakeBroker broker;
  broker.set_script([](const ReceivedRequest&) { return Action::ignore(); });
  Collector<RawResponse> got;
  NetworkClientOptions o = fast_options();
  o.reconnect_backoff_ms = 5000;
  o.reconnect_backoff_max_ms = 5000;
  NetworkClient client(o);
  const Node dead{2, "127.0.0.1", dead_port()};
  client.send(dead, raw(kMetadata, 0, 12, "d0"), got.callback());
  ASSERT_TRUE(got.wait(1));  // connect refused; the node is now backing off
  client.send(dead, raw(kMetadata, 0, 12, "d1"), got.callback());  // waits for the backoff
  client.send(node_of(broker), raw(kMetadata, 0, 12, "a"), got.callback());
  client.send(node_of(broker), raw(kMetadata, 0, 12, "b"), got.callback());
  ASSERT_TRUE(broker.wait_for([&] { return broker.user_requests().size() == 2; }));
  client.shutdown();
  ASSERT_EQ(got.size(), 4u) << "shutdown() returns after failing everything";
  for (size_t i = 1; i < 4; ++i) {
    ASSERT_FALSE(got.at(i));
    EXPECT_EQ(got.at(i).status().message(), "network client is shut down");
    EXPECT_EQ(got.at(i).status().kafka_code(), kNetworkException);
  }
  client.send(node_of(broker), raw(kMetadata, 0, 12, "late"), got.callback());
  ASSERT_EQ(got.size(), 5u) << "refused at once";
  EXPECT_EQ(got.thread(4), std::this_thread::get_id());
  EXPECT_FALSE(got.at(4));
  client.shutdown();  // idempotent
}

TEST(NetworkClient, CallbackMaySendAgainAndAThrowingCallbackIsContained) {
  FakeBroker broker;
  NetworkClient client(fast_options());
  Collector<RawResponse> got;
  client.send(node_of(broker), raw(kMetadata, 0, 12, "boom"), [](Result<RawResponse>) {
    throw std::runtime_error("callback failure");
  });
  auto chained = got.callback();
  client.send(node_of(broker), raw(kMetadata, 0, 12, "first"), [&, chained](Result<RawResponse> r) {
    chained(std::move(r));
    client.send(node_of(broker), raw(kMetadata, 0, 12, "second"), chained);
  });
  ASSERT_TRUE(got.wait(2));
  ASSERT_TRUE(got.at(0));
  ASSERT_TRUE(got.at(1));
  EXPECT_EQ(text(got.at(1)->body()), "second");
  EXPECT_EQ(broker.accepts().size(), 1u);
}

}  // namespace
}  // namespace spool::client
