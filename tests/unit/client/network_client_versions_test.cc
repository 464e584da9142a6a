// NetworkClient's handshake and version negotiation against FakeBroker
// (fake_broker.h): ApiVersions first with the client's software name, the
// highest common version per API, no common version, the KIP-511 fallback,
// handshake errors; the typed helper (negotiated and pinned versions, decode
// failures) and ControlledShutdown v0's header v0. Every wait is bounded.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "client/network_client.h"
#include "client_test_support.h"
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
