// NetworkClient against a real `spool broker` process (label `system`; the
// binary comes from SPOOL_BIN, set by tests/unit/client/CMakeLists.txt):
// ApiVersions equals the handler table's client-listener answer, a topic is
// created, Metadata names it with this broker as leader, a produced batch of
// three records comes back from Fetch at the highest common version (by
// topic id) with its offsets and record bytes. A missing SPOOL_BIN fails.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "broker/handlers/handler_table.h"
#include "client/network_client.h"
#include "protocol/create_topics_request.h"
#include "protocol/create_topics_response.h"
#include "protocol/fetch_request.h"
#include "protocol/fetch_response.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"
#include "protocol/produce_request.h"
#include "protocol/produce_response.h"
#include "record/batch_builder.h"

extern char** environ;

namespace spool::client {
namespace {

constexpr int32_t kBrokerId = 3;

uint16_t free_port() {
  asio::io_context ctx;
  asio::ip::tcp::acceptor a(ctx, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

bool port_accepts(uint16_t port) {
  asio::io_context ctx;
  asio::ip::tcp::socket s(ctx);
  std::error_code ec;
  s.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  return !ec;
}

// One `spool broker` child process; killed (SIGKILL after SIGTERM) on scope exit.
class BrokerProcess {
 public:
  ~BrokerProcess() { stop(); }

  // Starts it and waits (bounded) until its port accepts.
  ::testing::AssertionResult start(const std::string& bin) {
    dir_ = std::filesystem::temp_directory_path() /
           ("spool-netclient-" + std::to_string(::getpid()) + "-" + std::to_string(free_port()));
    std::filesystem::create_directories(dir_ / "data");
    log_ = (dir_ / "broker.log").string();
    port_ = free_port();
    std::vector<std::string> args = {bin,
                                     "broker",
                                     "--override",
                                     "listeners=PLAINTEXT://127.0.0.1:" + std::to_string(port_),
                                     "--override",
                                     "log.dirs=" + (dir_ / "data").string(),
                                     "--override",
                                     "broker.id=" + std::to_string(kBrokerId)};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    const int rc = posix_spawn(&pid_, bin.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return ::testing::AssertionFailure() << "cannot start " << bin << ": " << std::strerror(rc);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return ::testing::AssertionFailure() << "broker exited before listening:\n" << log();
      }
      if (port_accepts(port_)) return ::testing::AssertionSuccess();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return ::testing::AssertionFailure() << "broker did not listen on " << port_ << " within 30 s:\n" << log();
  }

  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      for (int i = 0; i < 100 && ::waitpid(pid_, &status, WNOHANG) != pid_; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (i == 99) {
          ::kill(pid_, SIGKILL);
          ::waitpid(pid_, &status, 0);
        }
      }
      pid_ = -1;
    }
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
      dir_.clear();
    }
  }

  std::string log() const {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  uint16_t port() const { return port_; }

 private:
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::filesystem::path dir_;
  std::string log_;
};

// Blocks the test thread (bounded) for one typed call.
template <class Req, class Resp>
Result<Reply<Resp>> call(NetworkClient& client, const Node& node, const Req& req, SendOptions opts = {}) {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<Result<Reply<Resp>>> out;
  client.send<Req, Resp>(node, req, [&](Result<Reply<Resp>> r) {
    std::lock_guard<std::mutex> l(mu);
    out.emplace(std::move(r));
    cv.notify_all();
  }, opts);
  std::unique_lock<std::mutex> l(mu);
  if (!cv.wait_for(l, std::chrono::seconds(20), [&] { return out.has_value(); })) {
    return Status::error("no callback within 20 s");
  }
  return std::move(*out);
}

int32_t be32(ByteSpan b, size_t at) {
  ByteReader r(b.subspan(at, 4));
  return r.i32();
}

TEST(NetworkClientBroker, ApiVersionsMetadataProduceAndFetchAgainstARealBroker) {
  const char* bin = std::getenv("SPOOL_BIN");
  ASSERT_NE(bin, nullptr) << "SPOOL_BIN is not set (tests/unit/client/CMakeLists.txt sets it)";
  ASSERT_TRUE(std::filesystem::exists(bin)) << bin;
  BrokerProcess broker;
  ASSERT_TRUE(broker.start(bin));

  NetworkClientOptions o;
  o.request_timeout_ms = 15000;
  NetworkClient client(o);
  const Node node{kBrokerId, "127.0.0.1", broker.port()};

  // ApiVersions: exactly the handler table's client-listener answer.
  protocol::ApiVersionsRequest hello;
  hello.client_software_name = "spool-test";
  hello.client_software_version = "1.0";
  auto versions = call<protocol::ApiVersionsRequest, protocol::ApiVersionsResponse>(client, node, hello);
  ASSERT_TRUE(versions) << versions.status().message();
  EXPECT_EQ(versions->version, protocol::ApiVersionsRequest::kMaxVersion);
  const protocol::ApiVersionsResponse want = broker::make_api_versions_response(broker::Listener::kClient);
  EXPECT_EQ(versions->message.error_code, protocol::ErrorCode::kNone);
  EXPECT_TRUE(versions->message.api_keys == want.api_keys);

  // CreateTopics: one partition, replication factor 1.
  protocol::CreateTopicsRequest create;
  protocol::CreateTopicsRequest::CreatableTopic topic;
  topic.name = "netclient-sys";
  topic.num_partitions = 1;
  topic.replication_factor = 1;
  create.topics.push_back(topic);
  auto created = call<protocol::CreateTopicsRequest, protocol::CreateTopicsResponse>(client, node, create);
  ASSERT_TRUE(created) << created.status().message();
  ASSERT_EQ(created->message.topics.size(), 1u);
  EXPECT_EQ(created->message.topics[0].error_code, protocol::ErrorCode::kNone);

  // Metadata at the highest common version: this broker leads partition 0.
  protocol::MetadataRequest meta;
  meta.topics.emplace().push_back({protocol::Uuid{}, std::string("netclient-sys")});
  auto md = call<protocol::MetadataRequest, protocol::MetadataResponse>(client, node, meta);
  ASSERT_TRUE(md) << md.status().message();
  EXPECT_EQ(md->version, std::min<int16_t>(protocol::MetadataRequest::kMaxVersion,
                                           broker::find_served_api(3, broker::Listener::kClient)->max_version));
  ASSERT_EQ(md->message.brokers.size(), 1u);
  EXPECT_EQ(md->message.brokers[0].node_id, kBrokerId);
  EXPECT_EQ(md->message.brokers[0].host, "127.0.0.1");
  EXPECT_EQ(md->message.brokers[0].port, broker.port());
  EXPECT_EQ(md->message.controller_id, kBrokerId);
  ASSERT_EQ(md->message.topics.size(), 1u);
  const auto& t = md->message.topics[0];
  EXPECT_EQ(t.error_code, protocol::ErrorCode::kNone);
  EXPECT_EQ(t.name, std::optional<std::string>("netclient-sys"));
  EXPECT_NE(t.topic_id, protocol::Uuid{});
  ASSERT_EQ(t.partitions.size(), 1u);
  EXPECT_EQ(t.partitions[0].partition_index, 0);
  EXPECT_EQ(t.partitions[0].leader_id, kBrokerId);
  EXPECT_EQ(t.partitions[0].replica_nodes, std::vector<int32_t>{kBrokerId});
  EXPECT_EQ(t.partitions[0].isr_nodes, std::vector<int32_t>{kBrokerId});

  // Produce three records (acks=all), pinned below v13 to name the topic.
  std::vector<record::BuildRecord> recs = {record::BuildRecord::of("k0", "v0", 1000),
                                           record::BuildRecord::of("k1", "v1", 1001),
                                           record::BuildRecord::of("k2", "v2", 1002)};
  auto batch = record::build_batch({}, recs);
  ASSERT_TRUE(batch) << batch.status().message();
  protocol::ProduceRequest produce;
  produce.acks = -1;
  produce.timeout_ms = 10000;
  protocol::ProduceRequest::TopicProduceData td;
  td.name = "netclient-sys";
  protocol::ProduceRequest::PartitionProduceData pd;
  pd.index = 0;
  pd.records = protocol::Records(*batch);
  td.partition_data.push_back(pd);
  produce.topic_data.push_back(td);
  SendOptions by_name;
  by_name.max_version = 12;
  auto produced = call<protocol::ProduceRequest, protocol::ProduceResponse>(client, node, produce, by_name);
  ASSERT_TRUE(produced) << produced.status().message();
  EXPECT_EQ(produced->version, 12);
  ASSERT_EQ(produced->message.responses.size(), 1u);
  ASSERT_EQ(produced->message.responses[0].partition_responses.size(), 1u);
  const auto& pr = produced->message.responses[0].partition_responses[0];
  EXPECT_EQ(pr.error_code, protocol::ErrorCode::kNone);
  EXPECT_EQ(pr.base_offset, 0);

  // Fetch at the highest common version (by topic id from v13 on).
  protocol::FetchRequest fetch;
  fetch.max_wait_ms = 100;
  fetch.min_bytes = 1;
  protocol::FetchRequest::FetchTopic ft;
  ft.topic = "netclient-sys";
  ft.topic_id = t.topic_id;
  protocol::FetchRequest::FetchPartition fp;
  fp.partition = 0;
  fp.fetch_offset = 0;
  fp.partition_max_bytes = 1 << 20;
  ft.partitions.push_back(fp);
  fetch.topics.push_back(ft);
  auto fetched = call<protocol::FetchRequest, protocol::FetchResponse>(client, node, fetch);
  ASSERT_TRUE(fetched) << fetched.status().message();
  EXPECT_EQ(fetched->version, std::min<int16_t>(protocol::FetchRequest::kMaxVersion,
                                                broker::find_served_api(1, broker::Listener::kClient)->max_version));
  EXPECT_EQ(fetched->message.error_code, protocol::ErrorCode::kNone);
  ASSERT_EQ(fetched->message.responses.size(), 1u);
  EXPECT_EQ(fetched->message.responses[0].topic_id, t.topic_id);
  ASSERT_EQ(fetched->message.responses[0].partitions.size(), 1u);
  const auto& fpart = fetched->message.responses[0].partitions[0];
  EXPECT_EQ(fpart.error_code, protocol::ErrorCode::kNone);
  EXPECT_EQ(fpart.high_watermark, 3);
  EXPECT_EQ(fpart.last_stable_offset, 3);
  EXPECT_EQ(fpart.log_start_offset, 0);
  ASSERT_TRUE(fpart.records.has_value());
  const ByteSpan got = fpart.records->bytes();
  ASSERT_EQ(got.size(), batch->size());
  EXPECT_EQ(be32(got, 8), static_cast<int32_t>(batch->size()) - 12);  // batch length
  EXPECT_EQ(be32(got, 23), 2);                                        // last offset delta
  EXPECT_EQ(be32(got, 57), 3);                                        // record count
  // The records themselves come back byte for byte (offset 0 was kept).
  EXPECT_TRUE(std::equal(got.begin() + 61, got.end(), batch->begin() + 61));
  EXPECT_EQ(got[16], 2);  // magic

  client.shutdown();
  broker.stop();
}

}  // namespace
}  // namespace spool::client
