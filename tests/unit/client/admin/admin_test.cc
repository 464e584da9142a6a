// client::Admin on a scripted fake RequestSender: routing (controller,
// leaders, coordinators, brokers by id), retries on NOT_CONTROLLER,
// NOT_COORDINATOR and COORDINATOR_LOAD_IN_PROGRESS, error mapping, and the
// admin properties.
#include "client/admin/admin.h"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/metadata_request.h"

namespace spool::client {
namespace {

namespace proto = spool::protocol;
using proto::ErrorCode;

struct Sent {
  Node node;
  int16_t api_key = 0;
  Bytes body;  // encoded at the highest version the caller allows
  int16_t version = 0;
};

// Answers every request at once, on the caller's thread, with what the
// script returns for it (a failure Status, or a response body).
class FakeSender : public RequestSender {
 public:
  using Script = std::function<Result<Bytes>(const Sent&)>;
  explicit FakeSender(Script script) : script_(std::move(script)) {}
  void send(const Node& node, RawRequest request, RawCallback callback) override {
    Sent s{node, request.api_key, {}, request.max_version};
    ByteWriter w;
    request.encode(w, s.version);
    s.body = w.buffer();
    sent.push_back(s);
    auto body = script_(s);
    if (!body) return callback(body.status());
    RawResponse r;
    r.api_key = s.api_key;
    r.version = s.version;
    r.frame = std::make_shared<FrameBytes>(body->begin(), body->end());
    callback(std::move(r));
  }
  void disconnect(const Node&) override {}
  std::vector<Sent> sent;
  std::vector<int16_t> keys() const {
    std::vector<int16_t> out;
    for (const auto& s : sent) out.push_back(s.api_key);
    return out;
  }

 private:
  Script script_;
};

template <class Msg>
Bytes encode(const Msg& m, int16_t version) {
  ByteWriter w;
  m.encode(w, version);
  return w.buffer();
}

template <class Req>
Req decode(const Sent& s) {
  Req r;
  ByteReader reader(s.body);
  EXPECT_TRUE(r.decode(reader, s.version));
  return r;
}

// Three brokers on ports 9000+id; controller 2; topic "t" with partition 0
// led by 1 and partition 1 led by 2.
proto::MetadataResponse cluster(int32_t controller = 2) {
  proto::MetadataResponse m;
  for (int32_t id = 0; id < 3; ++id) m.brokers.push_back({id, "b" + std::to_string(id), 9000 + id, std::nullopt});
  m.controller_id = controller;
  proto::MetadataResponse::MetadataResponseTopic t;
  t.name = "t";
  t.partitions.push_back({ErrorCode::kNone, 0, 1, 0, {1}, {1}, {}});
  t.partitions.push_back({ErrorCode::kNone, 1, 2, 0, {2}, {2}, {}});
  m.topics.push_back(t);
  return m;
}

AdminConfig config() {
  AdminConfig c;
  c.bootstrap_servers = {"boot:9092"};
  c.request_timeout_ms = 1000;
  c.default_api_timeout_ms = 2000;
  c.retry_backoff_ms = 1;
  return c;
}

TEST(Admin, CreateTopicsGoesToTheControllerAndFollowsItWhenItMoves) {
  int controller = 1;
  FakeSender fake([&](const Sent& s) -> Result<Bytes> {
    if (s.api_key == proto::MetadataRequest::kApiKey) return encode(cluster(controller), s.version);
    auto req = decode<proto::CreateTopicsRequest>(s);
    proto::CreateTopicsResponse resp;
    auto& r = resp.topics.emplace_back();
    r.name = req.topics.at(0).name;
    if (s.node.id != 2) {
      r.error_code = ErrorCode::kNotController;
      controller = 2;  // it moved
    }
    return encode(resp, s.version);
  });
  Admin admin(fake, config());
  proto::CreateTopicsRequest req;
  auto& t = req.topics.emplace_back();
  t.name = "fresh";
  t.num_partitions = 3;
  t.replication_factor = 1;
  auto resp = admin.create_topics(req);
  ASSERT_TRUE(resp.is_ok()) << resp.status().message();
  EXPECT_EQ(resp->topics.at(0).error_code, ErrorCode::kNone);
  ASSERT_EQ(fake.sent.size(), 4u);  // Metadata, CreateTopics to 1, Metadata, CreateTopics to 2
  EXPECT_EQ(fake.sent[0].node.host, "boot");
  EXPECT_EQ(fake.sent[1].node.id, 1);
  EXPECT_EQ(fake.sent[1].node.port, 9001);
  EXPECT_EQ(fake.sent[3].node.id, 2);
}

TEST(Admin, NotControllerUntilTheDeadlineReturnsTheLastAnswer) {
  FakeSender fake([&](const Sent& s) -> Result<Bytes> {
    if (s.api_key == proto::MetadataRequest::kApiKey) return encode(cluster(), s.version);
    proto::ElectLeadersResponse resp;
    resp.error_code = ErrorCode::kNotController;
    return encode(resp, s.version);
  });
  auto c = config();
  c.default_api_timeout_ms = 50;
  c.retry_backoff_ms = 10;
  Admin admin(fake, c);
  auto resp = admin.elect_leaders(proto::ElectLeadersRequest{});
  ASSERT_TRUE(resp.is_ok());
  EXPECT_EQ(resp->error_code, ErrorCode::kNotController);
  EXPECT_GT(fake.sent.size(), 2u);
}

TEST(Admin, GroupRequestsGoToTheCoordinatorAndRetryWhileItLoadsOrMoves) {
  std::deque<ErrorCode> answers{ErrorCode::kCoordinatorLoadInProgress, ErrorCode::kNotCoordinator, ErrorCode::kNone};
  int finds = 0;
  FakeSender fake([&](const Sent& s) -> Result<Bytes> {
    if (s.api_key == proto::FindCoordinatorRequest::kApiKey) {
      auto req = decode<proto::FindCoordinatorRequest>(s);
      EXPECT_EQ(req.key, "g");
      EXPECT_EQ(s.node.host, "boot");
      proto::FindCoordinatorResponse resp;
      ++finds;
      resp.node_id = finds == 1 ? 0 : 1;  // moves after NOT_COORDINATOR
      resp.host = "b" + std::to_string(resp.node_id);
      resp.port = 9000 + resp.node_id;
      return encode(resp, s.version);
    }
    EXPECT_LE(s.version, 5);
    proto::DescribeGroupsResponse resp;
    auto& g = resp.groups.emplace_back();
    g.group_id = "g";
    g.error_code = answers.front();
    answers.pop_front();
    g.group_state = "Stable";
    return encode(resp, s.version);
  });
  Admin admin(fake, config());
  auto d = admin.describe_group("g");
  ASSERT_TRUE(d.is_ok()) << d.status().message();
  EXPECT_EQ(d->group.group_state, "Stable");
  EXPECT_EQ(d->coordinator.id, 1);
  EXPECT_EQ(finds, 2);  // the load is waited out in place; NOT_COORDINATOR asks again
  EXPECT_EQ(fake.sent.back().node.port, 9001);
}

TEST(Admin, CoordinatorNotAvailableIsRetriedThenReported) {
  FakeSender fake([&](const Sent& s) -> Result<Bytes> {
    proto::FindCoordinatorResponse resp;
    resp.error_code = ErrorCode::kCoordinatorNotAvailable;
    return encode(resp, s.version);
  });
  auto c = config();
  c.default_api_timeout_ms = 30;
  c.retry_backoff_ms = 5;
  Admin admin(fake, c);
  auto r = admin.delete_group("g");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().kafka_code(), proto::to_int(ErrorCode::kCoordinatorNotAvailable));
  EXPECT_NE(r.status().message().find("finding the coordinator of group 'g'"), std::string::npos);
  EXPECT_GT(fake.sent.size(), 1u);
}

TEST(Admin, DeleteRecordsGoesToEachLeader) {
  FakeSender fake([&](const Sent& s) -> Result<Bytes> {
    if (s.api_key == proto::MetadataRequest::kApiKey) {
      auto m = cluster();
      proto::MetadataResponse::MetadataResponseTopic missing;
      missing.name = "gone";
      missing.error_code = ErrorCode::kUnknownTopicOrPartition;
      m.topics.push_back(missing);
      return encode(m, s.version);
    }
    auto req = decode<proto::DeleteRecordsRequest>(s);
    proto::DeleteRecordsResponse resp;
    for (const auto& t : req.topics) {
      auto& rt = resp.topics.emplace_back();
      rt.name = t.name;
      for (const auto& p : t.partitions) rt.partitions.push_back({p.partition_index, p.offset + s.node.id * 100, ErrorCode::kNone});
    }
    return encode(resp, s.version);
  });
  Admin admin(fake, config());
  proto::DeleteRecordsRequest req;
  auto& t = req.topics.emplace_back();
  t.name = "t";
  t.partitions.push_back({0, 5});
  t.partitions.push_back({1, 7});
  auto& g = req.topics.emplace_back();
  g.name = "gone";
  g.partitions.push_back({0, 1});
  auto resp = admin.delete_records(req);
  ASSERT_TRUE(resp.is_ok()) << resp.status().message();
  std::map<std::pair<std::string, int32_t>, std::pair<int64_t, ErrorCode>> got;
  for (const auto& rt : resp->topics)
    for (const auto& p : rt.partitions) got[{rt.name, p.partition_index}] = {p.low_watermark, p.error_code};
  EXPECT_EQ(got[std::make_pair(std::string("t"), 0)], std::make_pair(int64_t{105}, ErrorCode::kNone));  // leader 1
  EXPECT_EQ(got[std::make_pair(std::string("t"), 1)], std::make_pair(int64_t{207}, ErrorCode::kNone));  // leader 2
  EXPECT_EQ(got[std::make_pair(std::string("gone"), 0)].second, ErrorCode::kUnknownTopicOrPartition);
  EXPECT_EQ(fake.keys(), (std::vector<int16_t>{3, 21, 21}));
}

TEST(Admin, BrokerConfigsGoToTheBrokerTheyName) {
  FakeSender fake([&](const Sent& s) -> Result<Bytes> {
    if (s.api_key == proto::MetadataRequest::kApiKey) return encode(cluster(), s.version);
    auto req = decode<proto::DescribeConfigsRequest>(s);
    proto::DescribeConfigsResponse resp;
    for (const auto& r : req.resources) {
      auto& out = resp.results.emplace_back();
      out.resource_type = r.resource_type;
      out.resource_name = r.resource_name;
      out.error_message = s.node.host;
    }
    return encode(resp, s.version);
  });
  Admin admin(fake, config());
  proto::DescribeConfigsRequest req;
  req.resources.push_back({4, "2", std::nullopt});
  req.resources.push_back({2, "t", std::nullopt});
  auto resp = admin.describe_configs(req);
  ASSERT_TRUE(resp.is_ok()) << resp.status().message();
  ASSERT_EQ(resp->results.size(), 2u);
  std::map<std::string, std::string> host_of;
  for (const auto& r : resp->results) host_of[r.resource_name] = r.error_message.value_or("");
  EXPECT_EQ(host_of["2"], "b2");
  EXPECT_EQ(host_of["t"], "boot");

  req.resources = {{4, "7", std::nullopt}};
  auto missing = admin.describe_configs(req);
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().message(), "broker 7 is not live");
}

TEST(Admin, TransportFailuresAreNotRetried) {
  FakeSender fake([&](const Sent&) -> Result<Bytes> {
    return Status::error("connection refused", proto::to_int(ErrorCode::kNetworkException));
  });
  Admin admin(fake, config());
  auto r = admin.metadata(std::nullopt);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().kafka_code(), proto::to_int(ErrorCode::kNetworkException));
  EXPECT_EQ(fake.sent.size(), 1u);
}

TEST(Admin, ListOffsetsAnswersEveryPartition) {
  FakeSender fake([&](const Sent& s) -> Result<Bytes> {
    if (s.api_key == proto::MetadataRequest::kApiKey) return encode(cluster(), s.version);
    proto::ListOffsetsResponse resp;  // answers nothing: the partition reads as UNKNOWN_SERVER_ERROR
    return encode(resp, s.version);
  });
  Admin admin(fake, config());
  auto r = admin.list_offsets({{"t", 0}, {"t", 9}}, -1);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->at({"t", 0}).error_code, ErrorCode::kUnknownServerError);
  EXPECT_EQ(r->at({"t", 9}).error_code, ErrorCode::kUnknownTopicOrPartition);
}

TEST(AdminConfig, ReadsKafkaAdminProperties) {
  auto c = admin_config({{"bootstrap.servers", "a:1, b:2"},
                         {"client.id", "ops"},
                         {"request.timeout.ms", "5000"},
                         {"default.api.timeout.ms", "9000"},
                         {"retry.backoff.ms", "7"},
                         {"linger.ms", "3"}});
  ASSERT_TRUE(c.is_ok()) << c.status().message();
  EXPECT_EQ(c->bootstrap_servers, (std::vector<std::string>{"a:1", "b:2"}));
  EXPECT_EQ(c->client_id, "ops");
  EXPECT_EQ(c->request_timeout_ms, 5000);
  EXPECT_EQ(c->default_api_timeout_ms, 9000);
  EXPECT_EQ(c->connect_timeout_ms, 5000);
  EXPECT_EQ(c->retry_backoff_ms, 7);
  ASSERT_NE(c->security, nullptr);
  EXPECT_EQ(c->security->protocol, "PLAINTEXT");
  EXPECT_FALSE(admin_config({{"client.id", "x"}}).is_ok());
  EXPECT_FALSE(admin_config({{"bootstrap.servers", "a:1"}, {"request.timeout.ms", "soon"}}).is_ok());
  EXPECT_FALSE(admin_config({{"bootstrap.servers", "a:1"}, {"security.protocol", "BOGUS"}}).is_ok());
}

}  // namespace
}  // namespace spool::client
