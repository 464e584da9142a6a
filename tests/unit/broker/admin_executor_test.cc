// AdminExecutor: FIFO on its own thread, bounded queue, clean stop (the
// running job finishes, queued ones fail NOT_CONTROLLER, later submits fail
// at once). Then the topic lifecycle handlers over a real Server, Dispatcher
// and ReplicaManager: while the executor is held, a CreateTopics (and a
// Metadata that auto-creates) is not done and not answered, the reactor still
// answers other connections, and the answers behind it on the same connection
// wait; once released they come in request order, after the work ran.
// Every wait is bounded.
#include "broker/admin_executor.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "broker/broker_context.h"
#include "broker/dispatcher.h"
#include "broker/replica_manager.h"
#include "common/temp_dir.h"
#include "net/server.h"
#include "net/test_client.h"
#include "protocol/api_versions_request.h"
#include "protocol/api_versions_response.h"
#include "protocol/create_partitions_request.h"
#include "protocol/create_partitions_response.h"
#include "protocol/create_topics_request.h"
#include "protocol/create_topics_response.h"
#include "protocol/delete_topics_request.h"
#include "protocol/delete_topics_response.h"
#include "protocol/error_code.h"
#include "protocol/header.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"
#include "registry_test_support.h"

namespace spool::broker {
namespace {

using protocol::ErrorCode;
using std::chrono::milliseconds;

constexpr auto kWait = std::chrono::seconds(5);

int16_t code(ErrorCode c) { return static_cast<int16_t>(c); }

// A job that blocks the executor until open() (bounded: it gives up after
// kWait so a failing test cannot hang).
class Gate {
 public:
  AdminExecutor::Work job() {
    return [this] {
      entered_.set_value();
      open_.get_future().wait_for(kWait);
    };
  }
  bool wait_entered() { return entered_.get_future().wait_for(kWait) == std::future_status::ready; }
  void open() { open_.set_value(); }

 private:
  std::promise<void> entered_;
  std::promise<void> open_;
};

AdminExecutor::Fail no_fail() {
  return [](const Status& s) { ADD_FAILURE() << "unexpected fail: " << s.message(); };
}

TEST(AdminExecutorTest, RunsJobsInOrderOnItsOwnThread) {
  AdminExecutor ex;
  std::mutex mu;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  std::promise<void> done;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(ex.submit("job", [&, i] {
      std::lock_guard lk(mu);
      order.push_back(i);
      threads.push_back(std::this_thread::get_id());
      if (i == 4) done.set_value();
    }, no_fail()));
  }
  ASSERT_EQ(done.get_future().wait_for(kWait), std::future_status::ready);
  std::lock_guard lk(mu);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  for (auto id : threads) {
    EXPECT_NE(id, std::this_thread::get_id());
    EXPECT_EQ(id, ex.thread_id());
  }
  EXPECT_FALSE(ex.on_executor_thread());
}

TEST(AdminExecutorTest, FullQueueFailsOnTheCallerWithRequestTimedOut) {
  AdminExecutor ex(AdminExecutor::Options{"admin-test", 2});
  Gate gate;
  ASSERT_TRUE(ex.submit("gate", gate.job(), no_fail()));
  ASSERT_TRUE(gate.wait_entered());  // running: not counted as queued
  std::atomic<int> ran{0};
  EXPECT_TRUE(ex.submit("a", [&] { ++ran; }, no_fail()));
  EXPECT_TRUE(ex.submit("b", [&] { ++ran; }, no_fail()));
  EXPECT_EQ(ex.queued(), 2u);
  Status refused;
  std::thread::id fail_thread;
  EXPECT_FALSE(ex.submit("c", [&] { ADD_FAILURE() << "refused job ran"; }, [&](const Status& s) {
    refused = s;
    fail_thread = std::this_thread::get_id();
  }));
  EXPECT_EQ(refused.kafka_code(), code(ErrorCode::kRequestTimedOut));
  EXPECT_NE(refused.message().find("queue is full (2 jobs waiting)"), std::string::npos) << refused.message();
  EXPECT_EQ(fail_thread, std::this_thread::get_id());
  gate.open();
  EXPECT_TRUE(spool::net::testing::wait_until([&] { return ran.load() == 2; }, 5000));
}

TEST(AdminExecutorTest, StopFinishesTheRunningJobAndFailsTheQueuedOnes) {
  AdminExecutor ex;
  Gate gate;
  std::atomic<bool> running_done{false};
  ASSERT_TRUE(ex.submit("gate", [&] {
    gate.job()();
    running_done = true;
  }, no_fail()));
  ASSERT_TRUE(gate.wait_entered());
  std::vector<std::string> failed;
  std::mutex mu;
  for (const char* name : {"q1", "q2"}) {
    ASSERT_TRUE(ex.submit(name, [] { ADD_FAILURE() << "queued job ran after stop"; }, [&, name](const Status& s) {
      std::lock_guard lk(mu);
      EXPECT_EQ(s.kafka_code(), code(ErrorCode::kNotController));
      EXPECT_NE(s.message().find("shutting down"), std::string::npos) << s.message();
      failed.push_back(name);
    }));
  }
  std::thread stopper([&] { ex.stop(); });
  // The queued jobs fail at once, while the running one still holds stop().
  EXPECT_TRUE(spool::net::testing::wait_until([&] {
    std::lock_guard lk(mu);
    return failed.size() == 2;
  }, 5000));
  EXPECT_FALSE(running_done.load());
  gate.open();
  stopper.join();
  EXPECT_TRUE(running_done.load());
  EXPECT_EQ(failed, (std::vector<std::string>{"q1", "q2"}));
  // After stop: refused on the caller; stop() again is a no-op.
  Status after;
  EXPECT_FALSE(ex.submit("late", [] { ADD_FAILURE(); }, [&](const Status& s) { after = s; }));
  EXPECT_EQ(after.kafka_code(), code(ErrorCode::kNotController));
  ex.stop();
}

TEST(AdminExecutorTest, ThrowingJobAndStopFromAJobDoNotEndTheThread) {
  AdminExecutor ex;
  ASSERT_TRUE(ex.submit("throws", [] { throw std::runtime_error("boom"); }, no_fail()));
  ASSERT_TRUE(ex.submit("stops itself", [&ex] { ex.stop(); }, no_fail()));  // refused, logged
  std::promise<void> after;
  ASSERT_TRUE(ex.submit("after", [&] { after.set_value(); }, no_fail()));
  EXPECT_EQ(after.get_future().wait_for(kWait), std::future_status::ready);
}

// ---- the handlers, over a real server

std::string request(int16_t api_key, int16_t version, int32_t correlation_id,
                    const std::function<void(ByteWriter&)>& body) {
  ByteWriter w;
  protocol::encode_request_header(w, {api_key, version, correlation_id, std::string("admin-test")});
  body(w);
  Bytes b = w.take();
  return std::string(b.begin(), b.end());
}

std::string create_topics(int32_t correlation_id, const std::string& topic) {
  protocol::CreateTopicsRequest req;
  auto& t = req.topics.emplace_back();
  t.name = topic;
  t.num_partitions = 2;
  t.replication_factor = 1;
  return request(19, 4, correlation_id, [&](ByteWriter& w) { req.encode(w, 4); });
}

std::string api_versions(int32_t correlation_id) {
  return request(protocol::ApiVersionsRequest::kApiKey, 0, correlation_id,
                 [](ByteWriter& w) { protocol::ApiVersionsRequest{}.encode(w, 0); });
}

std::string metadata(int32_t correlation_id, const std::string& topic) {
  protocol::MetadataRequest req;
  req.topics.emplace();
  req.topics->emplace_back().name = topic;
  req.allow_auto_topic_creation = true;
  return request(3, 4, correlation_id, [&](ByteWriter& w) { req.encode(w, 4); });
}

// The correlation id of a non-flexible answer, and a reader at its body.
int32_t correlation_of(const std::string& frame, ByteReader& body) {
  body = ByteReader(reinterpret_cast<const uint8_t*>(frame.data()), frame.size());
  int32_t id = -1;
  EXPECT_TRUE(protocol::decode_response_header(body, false, id));
  return id;
}

class LifecycleHandlersTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::warn); }

  void SetUp() override {
    settings_.log_dirs = {dir_.path()};
    settings_.num_partitions = 3;
    storage::LogManager::Options lo;
    lo.log_dirs = settings_.log_dirs;
    lo.defaults = log_config_for(settings_, {});
    auto logs = storage::LogManager::open(lo);
    ASSERT_TRUE(logs) << logs.status().message();
    logs_ = std::move(logs.value());
    auto reg = open_test_registry(dir_.path(), store_);
    ASSERT_TRUE(reg) << reg.status().message();
    registry_ = std::move(reg.value());
    replicas_ = std::make_unique<ReplicaManager>(settings_, *registry_, *logs_);
    ASSERT_TRUE(replicas_->load());
    ctx_ = std::make_unique<BrokerContext>(BrokerContext{settings_, *registry_, *logs_, *replicas_, sessions_,
                                                         nullptr});
    ctx_->admin = &admin_;
    dispatcher_ = std::make_unique<Dispatcher>(*ctx_);
    net::ServerOptions so;
    so.listeners[0].port = 0;
    so.threads = 1;
    server_ = std::make_unique<net::Server>(so, *dispatcher_);
    Status s = server_->start();
    ASSERT_TRUE(s) << s.message();
  }
  void TearDown() override {
    if (server_) server_->stop();
    admin_.stop();
    replicas_.reset();
    if (logs_) logs_->shutdown();
  }
  uint16_t port() const { return server_->port(); }

  test_support::TempDir dir_{"spool-admin-exec"};
  BrokerSettings settings_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<cluster::EmbeddedStore> store_;
  std::unique_ptr<TopicRegistry> registry_;
  std::unique_ptr<ReplicaManager> replicas_;
  FetchSessionCache sessions_{FetchSessionCache::Options{}};
  AdminExecutor admin_;
  std::unique_ptr<BrokerContext> ctx_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<net::Server> server_;
};

TEST_F(LifecycleHandlersTest, CreateTopicsRunsOnTheExecutorAndAnswersStayInOrder) {
  Gate gate;
  ASSERT_TRUE(admin_.submit("gate", gate.job(), no_fail()));
  ASSERT_TRUE(gate.wait_entered());

  net::testing::TestClient a(port());
  ASSERT_TRUE(a.connected());
  ASSERT_TRUE(a.send_frame(create_topics(1, "made")));
  ASSERT_TRUE(a.send_frame(api_versions(2)));  // answered at once by the reactor, but sent after #1
  // The handler returned without creating: the executor is held.
  ASSERT_TRUE(net::testing::wait_until([&] { return admin_.queued() == 1; }, 5000));
  EXPECT_FALSE(replicas_->topic("made").has_value());
  // The reactor is free: another connection is served meanwhile.
  net::testing::TestClient other(port());
  ASSERT_TRUE(other.send_frame(api_versions(7)));
  auto other_answer = other.read_frame();
  ASSERT_TRUE(other_answer.has_value());
  ByteReader r(nullptr, 0);
  EXPECT_EQ(correlation_of(*other_answer, r), 7);
  // Nothing on `a`: #2 is ready but waits behind #1.
  EXPECT_TRUE(a.quiet_for(200));

  gate.open();
  auto first = a.read_frame();
  auto second = a.read_frame();
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(second.has_value());
  ByteReader body(nullptr, 0);
  ASSERT_EQ(correlation_of(*first, body), 1);
  protocol::CreateTopicsResponse created;
  ASSERT_TRUE(created.decode(body, 4));
  ASSERT_EQ(created.topics.size(), 1u);
  EXPECT_EQ(created.topics[0].name, "made");
  EXPECT_EQ(created.topics[0].error_code, ErrorCode::kNone);
  EXPECT_EQ(correlation_of(*second, body), 2);
  auto info = replicas_->topic("made");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->partitions, 2);
}

// Lifecycle requests pipelined on one connection take effect in arrival
// order (one FIFO executor): the grow sees the created topic, the delete the
// grown one; each answer carries its own request's outcome, in order.
TEST_F(LifecycleHandlersTest, PipelinedLifecycleRequestsApplyInArrivalOrder) {
  Gate gate;
  ASSERT_TRUE(admin_.submit("gate", gate.job(), no_fail()));
  ASSERT_TRUE(gate.wait_entered());
  net::testing::TestClient a(port());
  ASSERT_TRUE(a.send_frame(create_topics(1, "seq")));
  protocol::CreatePartitionsRequest grow;
  auto& g = grow.topics.emplace_back();
  g.name = "seq";
  g.count = 5;
  ASSERT_TRUE(a.send_frame(request(37, 1, 2, [&](ByteWriter& w) { grow.encode(w, 1); })));
  protocol::DeleteTopicsRequest del;
  del.topic_names = {"seq"};
  ASSERT_TRUE(a.send_frame(request(20, 1, 3, [&](ByteWriter& w) { del.encode(w, 1); })));
  ASSERT_TRUE(net::testing::wait_until([&] { return admin_.queued() == 3; }, 5000));
  EXPECT_TRUE(a.quiet_for(100));
  gate.open();

  ByteReader body(nullptr, 0);
  auto f1 = a.read_frame();
  ASSERT_TRUE(f1.has_value());
  ASSERT_EQ(correlation_of(*f1, body), 1);
  protocol::CreateTopicsResponse created;
  ASSERT_TRUE(created.decode(body, 4));
  ASSERT_EQ(created.topics.size(), 1u);
  EXPECT_EQ(created.topics[0].error_code, ErrorCode::kNone);

  auto f2 = a.read_frame();
  ASSERT_TRUE(f2.has_value());
  ASSERT_EQ(correlation_of(*f2, body), 2);
  protocol::CreatePartitionsResponse grown;
  ASSERT_TRUE(grown.decode(body, 1));
  ASSERT_EQ(grown.results.size(), 1u);
  EXPECT_EQ(grown.results[0].error_code, ErrorCode::kNone);  // UNKNOWN_TOPIC had it run before the create

  auto f3 = a.read_frame();
  ASSERT_TRUE(f3.has_value());
  ASSERT_EQ(correlation_of(*f3, body), 3);
  protocol::DeleteTopicsResponse deleted;
  ASSERT_TRUE(deleted.decode(body, 1));
  ASSERT_EQ(deleted.responses.size(), 1u);
  EXPECT_EQ(deleted.responses[0].error_code, ErrorCode::kNone);
  EXPECT_FALSE(replicas_->topic("seq").has_value());
}

TEST_F(LifecycleHandlersTest, InvalidCreateIsAnsweredOnTheReactorWithoutTheExecutor) {
  Gate gate;
  ASSERT_TRUE(admin_.submit("gate", gate.job(), no_fail()));
  ASSERT_TRUE(gate.wait_entered());
  protocol::CreateTopicsRequest req;
  auto& t = req.topics.emplace_back();
  t.name = "bad";
  t.num_partitions = 1;
  t.replication_factor = 3;  // more than the one broker: refused by validation
  net::testing::TestClient a(port());
  ASSERT_TRUE(a.send_frame(request(19, 4, 5, [&](ByteWriter& w) { req.encode(w, 4); })));
  auto answer = a.read_frame();  // while the executor is still held
  ASSERT_TRUE(answer.has_value());
  ByteReader body(nullptr, 0);
  ASSERT_EQ(correlation_of(*answer, body), 5);
  protocol::CreateTopicsResponse resp;
  ASSERT_TRUE(resp.decode(body, 4));
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].error_code, ErrorCode::kInvalidReplicationFactor);
  EXPECT_EQ(admin_.queued(), 0u);
  gate.open();
}

TEST_F(LifecycleHandlersTest, MetadataAutoCreationAnswersAfterTheExecutorCreated) {
  Gate gate;
  ASSERT_TRUE(admin_.submit("gate", gate.job(), no_fail()));
  ASSERT_TRUE(gate.wait_entered());
  net::testing::TestClient a(port());
  ASSERT_TRUE(a.send_frame(metadata(3, "auto")));
  ASSERT_TRUE(net::testing::wait_until([&] { return admin_.queued() == 1; }, 5000));
  EXPECT_TRUE(a.quiet_for(100));
  EXPECT_FALSE(replicas_->topic("auto").has_value());
  gate.open();
  auto answer = a.read_frame();
  ASSERT_TRUE(answer.has_value());
  ByteReader body(nullptr, 0);
  ASSERT_EQ(correlation_of(*answer, body), 3);
  protocol::MetadataResponse resp;
  ASSERT_TRUE(resp.decode(body, 4));
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].name, "auto");
  EXPECT_EQ(resp.topics[0].error_code, ErrorCode::kNone);
  EXPECT_EQ(resp.topics[0].partitions.size(), 3u);  // num.partitions
}

TEST_F(LifecycleHandlersTest, StopAnswersQueuedLifecycleRequestsNotController) {
  Gate gate;
  ASSERT_TRUE(admin_.submit("gate", gate.job(), no_fail()));
  ASSERT_TRUE(gate.wait_entered());
  net::testing::TestClient a(port());
  ASSERT_TRUE(a.send_frame(create_topics(9, "never")));
  ASSERT_TRUE(net::testing::wait_until([&] { return admin_.queued() == 1; }, 5000));
  std::thread stopper([&] { admin_.stop(); });
  auto answer = a.read_frame();  // failed by stop() while the gate still runs
  gate.open();
  stopper.join();
  ASSERT_TRUE(answer.has_value());
  ByteReader body(nullptr, 0);
  ASSERT_EQ(correlation_of(*answer, body), 9);
  protocol::CreateTopicsResponse resp;
  ASSERT_TRUE(resp.decode(body, 4));
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].error_code, ErrorCode::kNotController);
  EXPECT_FALSE(replicas_->topic("never").has_value());
  // After stop, a lifecycle request is refused at once, the same way.
  ASSERT_TRUE(a.send_frame(create_topics(10, "later")));
  auto late = a.read_frame();
  ASSERT_TRUE(late.has_value());
  ASSERT_EQ(correlation_of(*late, body), 10);
  ASSERT_TRUE(resp.decode(body, 4));
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].error_code, ErrorCode::kNotController);
}

}  // namespace
}  // namespace spool::broker
