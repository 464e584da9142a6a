// NetworkClient against FakeBroker (tests/unit/client/fake_broker.h):
// handshake and version negotiation, pipelining and response order,
// correlation mismatch, oversized responses, timeouts, lost connections,
// reconnect backoff, shutdown with pending work, the typed helper and the
// ControlledShutdown v0 header. Every wait is bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/network_client.h"
#include "fake_broker.h"
#include "protocol/api_versions_request.h"
#include "protocol/controlled_shutdown_request.h"
#include "protocol/controlled_shutdown_response.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"

namespace spool::client {
namespace {

using testing::Action;
using testing::Clock;
using testing::FakeBroker;
using testing::ReceivedRequest;

constexpr int16_t kMetadata = 3;
constexpr int16_t kNetworkException = 13;
constexpr int16_t kRequestTimedOut = 7;
constexpr int16_t kUnsupportedVersion = 35;

int64_t ms(Clock::duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }

std::string text(ByteSpan b) { return std::string(b.begin(), b.end()); }

std::string hex(ByteSpan b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) {
    s += kDigits[c >> 4];
    s += kDigits[c & 15];
  }
  return s;
}

std::string hex32(int32_t v) {
  ByteWriter w;
  w.i32(v);
  return hex(w.buffer());
}

// Collects callback results from the client's thread.
template <class T>
class Collector {
 public:
  std::function<void(Result<T>)> callback() {
    return [this](Result<T> r) {
      std::lock_guard<std::mutex> l(mu_);
      results_.push_back(std::move(r));
      threads_.push_back(std::this_thread::get_id());
      times_.push_back(Clock::now());
      cv_.notify_all();
    };
  }
  // Waits (bounded) until n results arrived.
  bool wait(size_t n, int timeout_ms = 5000) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::milliseconds(timeout_ms), [&] { return results_.size() >= n; });
  }
  size_t size() {
    std::lock_guard<std::mutex> l(mu_);
    return results_.size();
  }
  Result<T>& at(size_t i) { return results_.at(i); }
  std::thread::id thread(size_t i) { return threads_.at(i); }
  Clock::time_point time(size_t i) { return times_.at(i); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Result<T>> results_;
  std::vector<std::thread::id> threads_;
  std::vector<Clock::time_point> times_;
};

RawRequest raw(int16_t key, int16_t lo, int16_t hi, std::string body, int32_t timeout_ms = -1) {
  RawRequest r;
  r.api_key = key;
  r.min_version = lo;
  r.max_version = hi;
  r.timeout_ms = timeout_ms;
  r.encode = [body](ByteWriter& w, int16_t) { w.bytes(as_span(body)); };
  return r;
}

NetworkClientOptions fast_options() {
  NetworkClientOptions o;
  o.request_timeout_ms = 3000;
  o.connect_timeout_ms = 2000;
  o.reconnect_backoff_ms = 20;
  o.reconnect_backoff_max_ms = 100;
  o.reconnect_backoff_jitter = 0.0;
  o.seed = 1;
  return o;
}

Node node_of(const FakeBroker& b) { return Node{1, "127.0.0.1", b.port()}; }

// A port nothing listens on (bound, then closed).
uint16_t dead_port() {
  asio::io_context ctx;
  asio::ip::tcp::acceptor a(ctx, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

// ----------------------------------------------------------- handshake

TEST(NetworkClient, HandshakeFirstThenRequestAtHighestCommonVersion) {
  FakeBroker broker({{kMetadata, {1, 7}}, {18, {0, 5}}});
  NetworkClient client(fast_options());
  Collector<RawResponse> got;
  client.send(node_of(broker), raw(kMetadata, 0, 13, "hello"), got.callback());
  ASSERT_TRUE(got.wait(1));
  ASSERT_TRUE(got.at(0)) << got.at(0).status().message();
  EXPECT_EQ(got.at(0)->api_key, kMetadata);
  EXPECT_EQ(got.at(0)->version, 7);
  EXPECT_EQ(text(got.at(0)->body()), "hello");
  EXPECT_NE(got.thread(0), std::this_thread::get_id()) << "callbacks run on the client's thread";

  auto reqs = broker.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].header.api_key, 18);
  EXPECT_EQ(reqs[0].header.api_version, protocol::ApiVersionsRequest::kMaxVersion);
  EXPECT_EQ(reqs[0].header.client_id, std::optional<std::string>("spool-broker"));
  protocol::ApiVersionsRequest hello;
  ByteReader r(reqs[0].body);
  ASSERT_TRUE(hello.decode(r, reqs[0].header.api_version));
  EXPECT_EQ(hello.client_software_name, "spool-broker");
  EXPECT_EQ(hello.client_software_version, "0.1");
  EXPECT_EQ(reqs[1].header.api_key, kMetadata);
  EXPECT_EQ(reqs[1].header.api_version, 7);
  EXPECT_EQ(text(reqs[1].body), "hello");
  EXPECT_EQ(broker.accepts().size(), 1u);
}

TEST(NetworkClient, NoCommonVersionFailsThatRequestOnlyAndPinnedVersionIsUsed) {
  FakeBroker broker({{kMetadata, {4, 9}}, {18, {0, 5}}});
  NetworkClient client(fast_options());
  Collector<RawResponse> got;
  client.send(node_of(broker), raw(kMetadata, 0, 3, "old"), got.callback());
  client.send(node_of(broker), raw(1 /* Fetch: not advertised */, 0, 18, "x"), got.callback());
  client.send(node_of(broker), raw(kMetadata, 5, 5, "pinned"), got.callback());
  ASSERT_TRUE(got.wait(3));
  ASSERT_FALSE(got.at(0));
  EXPECT_EQ(got.at(0).status().kafka_code(), kUnsupportedVersion);
  EXPECT_NE(got.at(0).status().message().find("no common version for Metadata (api key 3) (broker 4-9, client 0-3)"),
            std::string::npos)
      << got.at(0).status().message();
  ASSERT_FALSE(got.at(1));
  EXPECT_EQ(got.at(1).status().kafka_code(), kUnsupportedVersion);
  EXPECT_NE(got.at(1).status().message().find("does not support Fetch (api key 1)"), std::string::npos);
  ASSERT_TRUE(got.at(2)) << got.at(2).status().message();
  EXPECT_EQ(got.at(2)->version, 5);
  auto user = broker.user_requests();
  ASSERT_EQ(user.size(), 1u);
  EXPECT_EQ(user[0].header.api_version, 5);
  EXPECT_EQ(broker.accepts().size(), 1u) << "a version mismatch keeps the connection";
}

TEST(NetworkClient, ApiVersionsUnsupportedRetriesAtTheBrokersVersion) {
  FakeBroker broker({{kMetadata, {0, 12}}, {18, {0, 2}}});
  broker.set_script(
      [&](const ReceivedRequest& req) {
        if (req.header.api_key != 18) {
          return Action::write(testing::response_frame(req.header.api_key, req.header.api_version,
                                                       req.header.correlation_id, req.body));
        }
        if (req.header.api_version > 2) {
          // Kafka's answer to a version it lacks: a v0 body with its range.
          protocol::ApiVersionsResponse resp;
          resp.error_code = protocol::ErrorCode::kUnsupportedVersion;
          resp.api_keys.push_back({18, 0, 2});
          ByteWriter body;
          resp.encode(body, 0);
          return Action::write(testing::response_frame(18, 0, req.header.correlation_id, body.buffer()));
        }
        return Action::write(testing::api_versions_answer(req, broker.ranges()));
      },
      /*api_versions_too=*/true);
  NetworkClient client(fast_options());
  Collector<RawResponse> got;
  client.send(node_of(broker), raw(kMetadata, 0, 13, "m"), got.callback());
  ASSERT_TRUE(got.wait(1));
  ASSERT_TRUE(got.at(0)) << got.at(0).status().message();
  EXPECT_EQ(got.at(0)->version, 12);
  auto reqs = broker.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].header.api_version, protocol::ApiVersionsRequest::kMaxVersion);
  EXPECT_EQ(reqs[1].header.api_key, 18);
  EXPECT_EQ(reqs[1].header.api_version, 2);
  EXPECT_EQ(reqs[2].header.api_key, kMetadata);
}

TEST(NetworkClient, HandshakeErrorFailsTheQueuedRequests) {
  FakeBroker broker;
  broker.set_script(
      [](const ReceivedRequest& req) {
        protocol::ApiVersionsResponse resp;
        resp.error_code = protocol::ErrorCode::kInvalidRequest;
        return Action::write(testing::answer(req, resp));
      },
      true);
  NetworkClient client(fast_options());
  Collector<RawResponse> got;
  client.send(node_of(broker), raw(kMetadata, 0, 12, "a"), got.callback());
  client.send(node_of(broker), raw(kMetadata, 0, 12, "b"), got.callback());
  ASSERT_TRUE(got.wait(2));
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_FALSE(got.at(i));
    EXPECT_EQ(got.at(i).status().kafka_code(), kNetworkException);
    EXPECT_NE(got.at(i).status().message().find("handshake with node 1 (127.0.0.1:" + std::to_string(broker.port()) +
                                                ") failed: ApiVersions error code 42"),
              std::string::npos)
        << got.at(i).status().message();
  }
  EXPECT_TRUE(broker.user_requests().empty());
}

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
  NetworkClient client(fast_options());
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

// ------------------------------------------------------------ typed helper

TEST(NetworkClient, TypedSendEncodesAtTheNegotiatedVersionAndDecodes) {
  FakeBroker broker({{kMetadata, {0, 9}}, {18, {0, 5}}});
  broker.set_script([](const ReceivedRequest& req) {
    protocol::MetadataRequest m;
    ByteReader r(req.body);
    EXPECT_TRUE(m.decode(r, req.header.api_version));
    protocol::MetadataResponse resp;
    resp.cluster_id = "c1";
    resp.controller_id = 7;
    protocol::MetadataResponse::MetadataResponseTopic t;
    t.name = m.topics && !m.topics->empty() ? (*m.topics)[0].name : std::nullopt;
    resp.topics.push_back(t);
    return Action::write(testing::answer(req, resp));
  });
  NetworkClient client(fast_options());
  Collector<Reply<protocol::MetadataResponse>> got;
  protocol::MetadataRequest req;
  req.topics.emplace().push_back({protocol::Uuid{}, std::string("orders")});
  client.send<protocol::MetadataRequest, protocol::MetadataResponse>(node_of(broker), req, got.callback());
  SendOptions pin;
  pin.max_version = 4;
  client.send<protocol::MetadataRequest, protocol::MetadataResponse>(node_of(broker), req, got.callback(), pin);
  ASSERT_TRUE(got.wait(2));
  ASSERT_TRUE(got.at(0)) << got.at(0).status().message();
  EXPECT_EQ(got.at(0)->version, 9);
  EXPECT_EQ(got.at(0)->message.cluster_id, std::optional<std::string>("c1"));
  EXPECT_EQ(got.at(0)->message.controller_id, 7);
  ASSERT_EQ(got.at(0)->message.topics.size(), 1u);
  EXPECT_EQ(got.at(0)->message.topics[0].name, std::optional<std::string>("orders"));
  ASSERT_TRUE(got.at(1)) << got.at(1).status().message();
  EXPECT_EQ(got.at(1)->version, 4);
  auto user = broker.user_requests();
  ASSERT_EQ(user.size(), 2u);
  EXPECT_EQ(user[0].header.api_version, 9);
  EXPECT_EQ(user[1].header.api_version, 4);
}

TEST(NetworkClient, TypedSendReportsAMalformedResponseAndKeepsTheConnection) {
  FakeBroker broker({{kMetadata, {0, 9}}, {18, {0, 5}}});
  broker.set_script([](const ReceivedRequest& req) {
    return Action::write(testing::response_frame(req.header.api_key, req.header.api_version,
                                                 req.header.correlation_id, as_span("\x01")));
  });
  NetworkClient client(fast_options());
  Collector<Reply<protocol::MetadataResponse>> got;
  client.send<protocol::MetadataRequest, protocol::MetadataResponse>(node_of(broker), {}, got.callback());
  client.send<protocol::MetadataRequest, protocol::MetadataResponse>(node_of(broker), {}, got.callback());
  ASSERT_TRUE(got.wait(2));
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_FALSE(got.at(i));
    EXPECT_EQ(got.at(i).status().message(), "malformed Metadata (api key 3) v9 response");
  }
  EXPECT_EQ(broker.accepts().size(), 1u);
}

TEST(NetworkClient, ControlledShutdownV0UsesHeaderV0WithoutClientId) {
  FakeBroker broker({{7, {0, 3}}, {18, {0, 5}}});
  broker.set_script([](const ReceivedRequest& req) {
    ByteReader r(req.frame);
    const int16_t key = r.i16();
    const int16_t version = r.i16();
    const int32_t correlation_id = r.i32();
    EXPECT_EQ(key, 7);
    protocol::ControlledShutdownResponse resp;
    resp.remaining_partitions.push_back({"t", 3});
    ByteWriter body;
    resp.encode(body, version);
    return Action::write(testing::response_frame(key, version, correlation_id, body.buffer()));
  });
  NetworkClient client(fast_options());
  Collector<Reply<protocol::ControlledShutdownResponse>> got;
  protocol::ControlledShutdownRequest req;
  req.broker_id = 5;
  SendOptions v0;
  v0.max_version = 0;
  client.send<protocol::ControlledShutdownRequest, protocol::ControlledShutdownResponse>(node_of(broker), req,
                                                                                         got.callback(), v0);
  client.send<protocol::ControlledShutdownRequest, protocol::ControlledShutdownResponse>(node_of(broker), req,
                                                                                         got.callback());
  ASSERT_TRUE(got.wait(2));
  ASSERT_TRUE(got.at(0)) << got.at(0).status().message();
  ASSERT_EQ(got.at(0)->message.remaining_partitions.size(), 1u);
  EXPECT_EQ(got.at(0)->message.remaining_partitions[0].partition_index, 3);
  ASSERT_TRUE(got.at(1)) << got.at(1).status().message();
  EXPECT_EQ(got.at(1)->version, 3);
  auto reqs = broker.requests();
  ASSERT_EQ(reqs.size(), 3u);
  // key 7, v0, correlation id, then the body (broker id 5): no client id.
  ByteReader corr_reader(ByteSpan(reqs[1].frame).subspan(4, 4));
  const int32_t corr = corr_reader.i32();
  EXPECT_EQ(hex(reqs[1].frame), "00070000" + hex32(corr) + "00000005");
}

}  // namespace
}  // namespace spool::client
