// `spool topic` (through client::Admin) against a scripted in-process fake
// broker: list, describe, create and delete, and how an unreachable or
// silent broker fails the command; parse_host_port, which reads its
// --bootstrap-server. The NetworkClient underneath has its own
// tests (tests/unit/client/network_client*_test.cc: negotiation, timeouts,
// TLS refusals); a real broker is covered by tests/compat.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <sstream>
#include <thread>

#include "cli/topic_command.h"
#include "client/host_port.h"
#include "protocol/api_versions_request.h"
#include "protocol/api_versions_response.h"
#include "protocol/create_topics_request.h"
#include "protocol/create_topics_response.h"
#include "protocol/delete_topics_request.h"
#include "protocol/delete_topics_response.h"
#include "protocol/describe_configs_request.h"
#include "protocol/describe_configs_response.h"
#include "protocol/header.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"

namespace spool {
namespace {

namespace proto = spool::protocol;

bool read_n(int fd, uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// Serves connections one after another until stopped. Answers ApiVersions,
// Metadata, CreateTopics and DeleteTopics with canned data.
class FakeBroker {
 public:
  FakeBroker() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ::listen(listen_fd_, 4);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeBroker() {
    stop_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    ::close(listen_fd_);
    thread_.join();
  }
  uint16_t port() const { return port_; }
  bool silent = false;  // accept but never answer (timeout test)

 private:
  void serve() {
    while (!stop_) {
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;
      handle(fd);
      ::close(fd);
    }
  }

  void handle(int fd) {
    while (true) {
      uint8_t sz[4];
      if (!read_n(fd, sz, 4)) return;
      ByteReader sr(sz, 4);
      int32_t size = sr.i32();
      Bytes frame(static_cast<size_t>(size));
      if (!read_n(fd, frame.data(), frame.size())) return;
      if (silent) continue;
      ByteReader r(frame);
      proto::RequestHeader h;
      if (!proto::decode_request_header(r, h)) return;
      ByteWriter w;
      w.i32(0);
      proto::encode_response_header(w, h.correlation_id, proto::response_header_flexible(h.api_key, h.api_version));
      answer(h, r, w);
      w.patch_i32(0, static_cast<int32_t>(w.size() - 4));
      ::send(fd, w.buffer().data(), w.size(), MSG_NOSIGNAL);
    }
  }

  void answer(const proto::RequestHeader& h, ByteReader& r, ByteWriter& w) {
    int16_t v = h.api_version;
    switch (h.api_key) {
      case proto::ApiVersionsRequest::kApiKey: {
        proto::ApiVersionsResponse resp;
        resp.api_keys = {{3, 0, 8}, {18, 0, 3}, {19, 2, 4}, {20, 1, 3}, {32, 1, 2}};
        resp.encode(w, v);
        break;
      }
      case proto::MetadataRequest::kApiKey: {
        proto::MetadataRequest req;
        req.decode(r, v);
        proto::MetadataResponse resp;
        resp.brokers = {{0, "127.0.0.1", 9092, std::nullopt}};
        proto::MetadataResponse::MetadataResponseTopic t;
        t.name = "orders";
        t.partitions.push_back({proto::ErrorCode::kNone, 1, 0, 2, {0}, {0}, {}});
        t.partitions.push_back({proto::ErrorCode::kNone, 0, 0, 2, {0}, {0}, {}});
        if (!req.topics || req.topics->empty()) {
          resp.topics.push_back(t);
          t.name = "audit";
          resp.topics.push_back(t);
        } else {
          for (const auto& rt : *req.topics) {
            if (rt.name.value_or("") == "orders") {
              resp.topics.push_back(t);
            } else {
              proto::MetadataResponse::MetadataResponseTopic missing;
              missing.name = rt.name.value_or("");
              missing.error_code = protocol::ErrorCode::kUnknownTopicOrPartition;
              resp.topics.push_back(missing);
            }
          }
        }
        resp.encode(w, v);
        break;
      }
      case proto::CreateTopicsRequest::kApiKey: {
        proto::CreateTopicsRequest req;
        req.decode(r, v);
        proto::CreateTopicsResponse resp;
        for (const auto& t : req.topics) {
          proto::CreateTopicsResponse::CreatableTopicResult res;
          res.name = t.name;
          if (t.name == "orders") {
            res.error_code = protocol::ErrorCode::kTopicAlreadyExists;
            res.error_message = "Topic 'orders' already exists.";
          } else {
            res.num_partitions = t.num_partitions < 0 ? 1 : t.num_partitions;
            res.replication_factor = t.replication_factor < 0 ? 1 : t.replication_factor;
            last_configs_ = t.configs.size();
          }
          resp.topics.push_back(res);
        }
        resp.encode(w, v);
        break;
      }
      case proto::DeleteTopicsRequest::kApiKey: {
        proto::DeleteTopicsRequest req;
        req.decode(r, v);
        proto::DeleteTopicsResponse resp;
        for (const auto& n : req.topic_names) {
          proto::DeleteTopicsResponse::DeletableTopicResult res;
          res.name = n;
          res.error_code = n == "orders" ? protocol::ErrorCode::kNone : protocol::ErrorCode::kUnknownTopicOrPartition;
          resp.responses.push_back(res);
        }
        resp.encode(w, v);
        break;
      }
      case proto::DescribeConfigsRequest::kApiKey: {
        proto::DescribeConfigsRequest req;
        req.decode(r, v);
        proto::DescribeConfigsResponse resp;
        for (const auto& res : req.resources) {
          proto::DescribeConfigsResponse::DescribeConfigsResult out;
          out.resource_type = res.resource_type;
          out.resource_name = res.resource_name;
          proto::DescribeConfigsResponse::DescribeConfigsResourceResult e;
          e.name = "retention.ms";
          e.value = "1000";
          e.config_source = 1;
          out.configs.push_back(e);
          e.name = "segment.bytes";
          e.value = "1073741824";
          e.config_source = 5;
          out.configs.push_back(e);
          resp.results.push_back(out);
        }
        resp.encode(w, v);
        break;
      }
      default:
        break;
    }
  }

 public:
  std::atomic<size_t> last_configs_{0};

 private:
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(HostPort, Parse) {
  auto r = client::parse_host_port("example.com:9093");
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->first, "example.com");
  EXPECT_EQ(r->second, 9093);
  r = client::parse_host_port("[::1]:19092");
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->first, "::1");
  EXPECT_EQ(r->second, 19092);
  r = client::parse_host_port("localhost");
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->second, 9092);
  EXPECT_FALSE(client::parse_host_port("host:").is_ok());
  EXPECT_FALSE(client::parse_host_port("host:70000").is_ok());
  EXPECT_FALSE(client::parse_host_port(":9092").is_ok());
  EXPECT_FALSE(client::parse_host_port("host:x").is_ok());
}

cli::TopicArgs args_for(const FakeBroker& fb, const std::string& action, const std::string& name = "") {
  cli::TopicArgs a;
  a.action = action;
  a.name = name;
  a.bootstrap_server = "127.0.0.1:" + std::to_string(fb.port());
  a.timeout_ms = 5000;
  return a;
}

TEST(TopicCommand, ListAndDescribe) {
  FakeBroker fb;
  std::ostringstream out, err;
  EXPECT_EQ(cli::run_topic_command(args_for(fb, "list"), out, err), 0) << err.str();
  EXPECT_EQ(out.str(), "audit\norders\n");

  out.str("");
  auto a = args_for(fb, "describe", "orders");
  a.output = cli::OutputFormat::kJson;
  EXPECT_EQ(cli::run_topic_command(a, out, err), 0) << err.str();
  auto j = nlohmann::json::parse(out.str());
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["partitions"][0]["partition"], 0);  // sorted
  EXPECT_EQ(j[0]["partitions"][1]["partition"], 1);
  EXPECT_EQ(j[0]["configs"], nlohmann::json({{"retention.ms", "1000"}}));

  out.str("");
  EXPECT_EQ(cli::run_topic_command(args_for(fb, "describe", "orders"), out, err), 0) << err.str();
  EXPECT_NE(out.str().find("Configs: retention.ms=1000"), std::string::npos) << out.str();

  out.str("");
  err.str("");
  EXPECT_EQ(cli::run_topic_command(args_for(fb, "describe", "nope"), out, err), 1);
  EXPECT_NE(err.str().find("UNKNOWN_TOPIC_OR_PARTITION"), std::string::npos) << err.str();
}

TEST(TopicCommand, CreateAndDelete) {
  FakeBroker fb;
  std::ostringstream out, err;
  auto a = args_for(fb, "create", "fresh");
  a.partitions = 3;
  a.configs = {"retention.ms=1000", "cleanup.policy=compact"};
  EXPECT_EQ(cli::run_topic_command(a, out, err), 0) << err.str();
  EXPECT_EQ(out.str(), "created topic 'fresh' (3 partitions)\n");
  EXPECT_EQ(fb.last_configs_.load(), 2u);

  out.str("");
  EXPECT_EQ(cli::run_topic_command(args_for(fb, "create", "orders"), out, err), 1);
  EXPECT_NE(err.str().find("TOPIC_ALREADY_EXISTS"), std::string::npos) << err.str();

  a.configs = {"bad"};
  err.str("");
  EXPECT_EQ(cli::run_topic_command(a, out, err), 2);
  EXPECT_NE(err.str().find("expected key=value"), std::string::npos);

  out.str("");
  EXPECT_EQ(cli::run_topic_command(args_for(fb, "delete", "orders"), out, err), 0);
  EXPECT_EQ(out.str(), "deleted topic 'orders'\n");
  err.str("");
  EXPECT_EQ(cli::run_topic_command(args_for(fb, "delete", "ghost"), out, err), 1);
  EXPECT_NE(err.str().find("UNKNOWN_TOPIC_OR_PARTITION"), std::string::npos);
}

TEST(TopicCommand, AnUnreachableBrokerFailsTheCommand) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const uint16_t port = ntohs(addr.sin_port);
  ::close(fd);  // nothing listens there now
  cli::TopicArgs a;
  a.action = "list";
  a.bootstrap_server = "127.0.0.1:" + std::to_string(port);
  a.timeout_ms = 2000;
  std::ostringstream out, err;
  EXPECT_EQ(cli::run_topic_command(a, out, err), 1);
  EXPECT_NE(err.str().find("cannot connect"), std::string::npos) << err.str();
  EXPECT_EQ(out.str(), "");
}

TEST(TopicCommand, ASilentBrokerTimesOut) {
  FakeBroker fb;
  fb.silent = true;
  auto a = args_for(fb, "list");
  a.timeout_ms = 300;
  std::ostringstream out, err;
  EXPECT_EQ(cli::run_topic_command(a, out, err), 1);
  EXPECT_NE(err.str().find("timed out"), std::string::npos) << err.str();
  EXPECT_EQ(out.str(), "");
}

TEST(TopicCommand, BadBootstrapServer) {
  cli::TopicArgs a;
  a.action = "list";
  a.bootstrap_server = "host:notaport";
  std::ostringstream out, err;
  EXPECT_EQ(cli::run_topic_command(a, out, err), 2);
}

}  // namespace
}  // namespace spool
