// ReplicaFetcherManager against a fake leader (an in-process LeaderEndpoint
// over a real leader log in a temp dir): the follower log becomes
// byte-identical to the leader's, takes min(leader HW, own log end), truncates
// on DivergingEpoch and then converges, parks on FENCED_LEADER_EPOCH, and
// sends replica id, current leader epoch and last fetched epoch, and stops
// following at once while a Fetch to a hung leader is in flight. With
// truncation on fetch off it truncates by OffsetForLeaderEpoch rounds first
// (KIP-101, KIP-279). Every wait
// is bounded (5 s).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <random>
#include <thread>
#include <tuple>

#include "record/batch_builder.h"
#include "replica/replica_fetcher.h"
#include "replica/truncation.h"
#include "storage/log_manager.h"

namespace spool::replica {
namespace {

using protocol::ErrorCode;

// Serves Fetch from `log` like a leader (reads to the log end, DivergingEpoch
// by the leader-side rule) with a settable high watermark and error.
class FakeLeader : public LeaderEndpoint {
 public:
  explicit FakeLeader(std::shared_ptr<storage::Log> log) : log_(std::move(log)) {}
  Result<FetchAnswer> fetch(const client::Node&, const protocol::FetchRequest& req) override {
    std::unique_lock lk(mu_);
    if (hang_) {
      ++hung_;
      cv_.wait(lk, [this] { return !hang_; });
      --hung_;
    }
    requests_.push_back(req);
    FetchAnswer a;
    a.version = 12;
    for (const auto& t : req.topics) {
      auto& rt = a.response.responses.emplace_back();
      rt.topic = t.topic;
      for (const auto& p : t.partitions) {
        auto& pd = rt.partitions.emplace_back();
        pd.partition_index = p.partition;
        pd.high_watermark = hw_;
        pd.log_start_offset = log_->log_start_offset();
        if (error_ != ErrorCode::kNone) {
          pd.error_code = error_;
          continue;
        }
        if (p.last_fetched_epoch >= 0) {
          auto d = check_fetch_divergence(p.last_fetched_epoch, p.fetch_offset,
                                          log_->end_offset_for_epoch(p.last_fetched_epoch), log_->log_start_offset());
          if (d.error != ErrorCode::kNone) {
            pd.error_code = d.error;
            continue;
          }
          if (d.diverging) {
            pd.diverging_epoch.epoch = d.diverging->epoch;
            pd.diverging_epoch.end_offset = d.diverging->end_offset;
            continue;
          }
        }
        if (p.fetch_offset >= log_->log_end_offset()) continue;
        auto r = log_->read(p.fetch_offset, p.partition_max_bytes, log_->log_end_offset(), true);
        if (!r) {
          pd.error_code = ErrorCode::kOffsetOutOfRange;
          continue;
        }
        auto owned = std::make_shared<Bytes>(std::move(r->records));
        keep_.push_back(owned);
        pd.records = protocol::Records::view(std::span<uint8_t>(owned->data(), owned->size()));
      }
    }
    return a;
  }
  Result<LeaderOffsets> leader_offsets(const client::Node&, const TopicPartition&, int32_t) override {
    return LeaderOffsets{log_->log_start_offset(), log_->log_end_offset()};
  }
  // OffsetForLeaderEpoch as the leader answers it (Kafka's endOffsetFor).
  Result<std::vector<EpochAnswer>> epoch_end_offsets(const client::Node&,
                                                     const std::vector<EpochQuery>& queries) override {
    std::lock_guard lk(mu_);
    std::vector<EpochAnswer> out;
    for (const auto& q : queries) {
      epoch_queries_.push_back(q);
      EpochAnswer a{q.tp};
      if (error_ != ErrorCode::kNone) {
        a.error = error_;
      } else {
        std::tie(a.epoch, a.end_offset) = log_->end_offset_for_epoch(q.epoch);
      }
      out.push_back(a);
    }
    return out;
  }
  std::vector<EpochQuery> epoch_queries() {
    std::lock_guard lk(mu_);
    return epoch_queries_;
  }
  void set_hw(int64_t hw) {
    std::lock_guard lk(mu_);
    hw_ = hw;
  }
  void set_error(ErrorCode e) {
    std::lock_guard lk(mu_);
    error_ = e;
  }
  // A paused leader: fetches block until release().
  void hang() {
    std::lock_guard lk(mu_);
    hang_ = true;
  }
  void release() {
    std::lock_guard lk(mu_);
    hang_ = false;
    cv_.notify_all();
  }
  int hung() {
    std::lock_guard lk(mu_);
    return hung_;
  }
  std::vector<protocol::FetchRequest> requests() {
    std::lock_guard lk(mu_);
    return requests_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool hang_ = false;
  int hung_ = 0;
  std::shared_ptr<storage::Log> log_;
  int64_t hw_ = 0;
  ErrorCode error_ = ErrorCode::kNone;
  std::vector<protocol::FetchRequest> requests_;
  std::vector<EpochQuery> epoch_queries_;
  std::vector<std::shared_ptr<Bytes>> keep_;
};

class ReplicaFetcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("spool-fetcher-" + std::to_string(std::random_device{}()));
    leader_logs_ = open_logs(dir_ / "leader");
    follower_logs_ = open_logs(dir_ / "follower");
    leader_log_ = *leader_logs_->create("t", 0, storage::LogConfig{});
    follower_log_ = *follower_logs_->create("t", 0, storage::LogConfig{});
    leader_ = std::make_shared<FakeLeader>(leader_log_);
  }
  void TearDown() override {
    if (fetchers_) fetchers_->shutdown();
    leader_logs_->shutdown();
    follower_logs_->shutdown();
    std::filesystem::remove_all(dir_);
  }
  static std::unique_ptr<storage::LogManager> open_logs(const std::filesystem::path& p) {
    std::filesystem::create_directories(p);
    storage::LogManager::Options o;
    o.log_dirs = {p.string()};
    auto lm = storage::LogManager::open(o);
    EXPECT_TRUE(lm);
    return std::move(*lm);
  }
  static void append(storage::Log& log, int32_t epoch, const std::string& value) {
    record::BatchOptions bo;
    record::BuildRecord r;
    r.value = Bytes(value.begin(), value.end());
    auto batch = record::build_batch(bo, std::span<const record::BuildRecord>(&r, 1));
    ASSERT_TRUE(batch);
    ASSERT_TRUE(log.append(std::span<uint8_t>(batch->data(), batch->size()), 1, epoch));
  }
  static Bytes all_bytes(storage::Log& log) {
    if (log.log_end_offset() == 0) return {};
    auto r = log.read(0, 1 << 24, log.log_end_offset(), true);
    EXPECT_TRUE(r);
    return r ? r->records : Bytes{};
  }
  void start(int32_t epoch, bool truncate_on_fetch = true) {
    FetcherOptions o;
    o.truncate_on_fetch = truncate_on_fetch;
    o.fetch.replica_id = 2;
    o.fetch.broker_epoch = 77;
    o.fetch.max_wait_ms = 10;
    o.backoff_ms = 20;
    fetchers_ = std::make_unique<ReplicaFetcherManager>(o, leader_);
    FollowedPartition p;
    p.tp = TopicPartition("t", 0);
    p.leader_epoch = epoch;
    p.log = follower_log_;
    p.durable_writes = true;
    p.set_high_watermark = [this](int64_t hw) { follower_hw_.store(hw); };
    fetchers_->add(client::Node{1, "127.0.0.1", 9}, p);
  }
  template <class F>
  bool eventually(F f) {
    for (int i = 0; i < 500; ++i) {
      if (f()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  std::filesystem::path dir_;
  std::unique_ptr<storage::LogManager> leader_logs_, follower_logs_;
  std::shared_ptr<storage::Log> leader_log_, follower_log_;
  std::shared_ptr<FakeLeader> leader_;
  std::unique_ptr<ReplicaFetcherManager> fetchers_;
  std::atomic<int64_t> follower_hw_{-1};
};

TEST_F(ReplicaFetcherTest, ReplicatesByteIdenticalAndTakesTheHighWatermark) {
  for (int i = 0; i < 3; ++i) append(*leader_log_, 1, "v" + std::to_string(i));
  leader_->set_hw(2);
  start(1);
  ASSERT_TRUE(eventually([&] { return follower_log_->log_end_offset() == 3; }));
  EXPECT_EQ(all_bytes(*follower_log_), all_bytes(*leader_log_));
  ASSERT_TRUE(eventually([&] { return follower_hw_.load() == 2; }));
  // Durable: the follower fsyncs before reporting the next fetch offset.
  ASSERT_TRUE(eventually([&] { return follower_log_->flushed_offset() == 3; }));
  EXPECT_EQ(follower_log_->end_offset_for_epoch(1), std::make_pair(1, int64_t{3}));
  auto reqs = leader_->requests();
  ASSERT_FALSE(reqs.empty());
  EXPECT_EQ(reqs.back().replica_id, 2);
  EXPECT_EQ(reqs.back().replica_state.replica_id, 2);
  EXPECT_EQ(reqs.back().replica_state.replica_epoch, 77);
  ASSERT_EQ(reqs.back().topics.size(), 1u);
  EXPECT_EQ(reqs.back().topics[0].partitions[0].current_leader_epoch, 1);
  EXPECT_EQ(reqs.back().topics[0].partitions[0].fetch_offset, 3);
  EXPECT_EQ(reqs.back().topics[0].partitions[0].last_fetched_epoch, 1);
  // The leader appends more: it follows.
  append(*leader_log_, 1, "v3");
  leader_->set_hw(4);
  ASSERT_TRUE(eventually([&] { return follower_hw_.load() == 4; }));
  EXPECT_EQ(all_bytes(*follower_log_), all_bytes(*leader_log_));
}

TEST_F(ReplicaFetcherTest, TruncatesOnDivergingEpochThenConverges) {
  // Both have epoch 1 at 0-1; the follower also has 2-4 of epoch 1 (never
  // committed); the new leader wrote epoch 2 from 2.
  for (int i = 0; i < 2; ++i) {
    append(*leader_log_, 1, "c" + std::to_string(i));
  }
  ASSERT_TRUE(follower_log_->append_as_follower(all_bytes(*leader_log_)));
  for (int i = 0; i < 3; ++i) append(*follower_log_, 1, "lost" + std::to_string(i));
  leader_log_->begin_leader_epoch(2);
  for (int i = 0; i < 2; ++i) append(*leader_log_, 2, "n" + std::to_string(i));
  ASSERT_EQ(follower_log_->log_end_offset(), 5);
  leader_->set_hw(4);
  start(2);
  ASSERT_TRUE(eventually([&] { return all_bytes(*follower_log_) == all_bytes(*leader_log_); }));
  EXPECT_EQ(follower_log_->log_end_offset(), 4);
  EXPECT_EQ(follower_log_->end_offset_for_epoch(1), std::make_pair(1, int64_t{2}));
  ASSERT_TRUE(eventually([&] { return follower_hw_.load() == 4; }));
}

// inter.broker.protocol.version below 2.7-IV1: the same divergence found
// with OffsetForLeaderEpoch before fetching (KIP-101), and no
// LastFetchedEpoch on the fetches.
TEST_F(ReplicaFetcherTest, TruncatesWithOffsetForLeaderEpochThenConverges) {
  for (int i = 0; i < 2; ++i) append(*leader_log_, 1, "c" + std::to_string(i));
  ASSERT_TRUE(follower_log_->append_as_follower(all_bytes(*leader_log_)));
  for (int i = 0; i < 3; ++i) append(*follower_log_, 1, "lost" + std::to_string(i));
  leader_log_->begin_leader_epoch(2);
  for (int i = 0; i < 2; ++i) append(*leader_log_, 2, "n" + std::to_string(i));
  leader_->set_hw(4);
  start(2, /*truncate_on_fetch=*/false);
  ASSERT_TRUE(eventually([&] { return all_bytes(*follower_log_) == all_bytes(*leader_log_); }));
  EXPECT_EQ(follower_log_->end_offset_for_epoch(1), std::make_pair(1, int64_t{2}));
  auto queries = leader_->epoch_queries();
  ASSERT_EQ(queries.size(), 1u);
  EXPECT_EQ(queries[0].epoch, 1);  // the latest epoch in the follower's log
  EXPECT_EQ(queries[0].current_leader_epoch, 2);
  for (const auto& r : leader_->requests()) EXPECT_EQ(r.topics[0].partitions[0].last_fetched_epoch, -1);
  ASSERT_TRUE(eventually([&] { return follower_hw_.load() == 4; }));
}

// KIP-279: the follower led epoch 3 (never committed) and the leader has
// epochs 2 and 4 it never saw; asking for 3 gets (2, 4), an epoch the
// follower never had, so it cuts to where its own epoch <= 2 ends and asks
// again for its new latest epoch, 1: (1, 2), and the logs then agree.
TEST_F(ReplicaFetcherTest, OffsetForLeaderEpochAsksAgainForAnEpochItNeverHad) {
  for (int i = 0; i < 2; ++i) append(*leader_log_, 1, "c" + std::to_string(i));
  ASSERT_TRUE(follower_log_->append_as_follower(all_bytes(*leader_log_)));
  follower_log_->begin_leader_epoch(3);
  for (int i = 0; i < 3; ++i) append(*follower_log_, 3, "lost" + std::to_string(i));
  leader_log_->begin_leader_epoch(2);
  for (int i = 0; i < 2; ++i) append(*leader_log_, 2, "two" + std::to_string(i));
  leader_log_->begin_leader_epoch(4);
  for (int i = 0; i < 2; ++i) append(*leader_log_, 4, "four" + std::to_string(i));
  leader_->set_hw(6);
  start(4, /*truncate_on_fetch=*/false);
  ASSERT_TRUE(eventually([&] { return all_bytes(*follower_log_) == all_bytes(*leader_log_); }));
  auto queries = leader_->epoch_queries();
  ASSERT_EQ(queries.size(), 2u);
  EXPECT_EQ(queries[0].epoch, 3);
  EXPECT_EQ(queries[1].epoch, 1);
  EXPECT_EQ(follower_log_->end_offset_for_epoch(4), std::make_pair(4, int64_t{6}));
}

TEST_F(ReplicaFetcherTest, FencedLeaderEpochParksThePartition) {
  append(*leader_log_, 1, "v");
  leader_->set_error(ErrorCode::kFencedLeaderEpoch);
  start(1);
  ASSERT_TRUE(eventually([&] {
    auto s = fetchers_->state(TopicPartition("t", 0));
    return s && s->phase == FetchPhase::kParked;
  }));
  const size_t sent = leader_->requests().size();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(leader_->requests().size(), sent);  // no more fetches while parked
  EXPECT_EQ(follower_log_->log_end_offset(), 0);
  // The next LeaderAndIsr adds it again: it fetches.
  leader_->set_error(ErrorCode::kNone);
  fetchers_->remove(TopicPartition("t", 0));
  EXPECT_EQ(fetchers_->thread_count(), 0u);
  start(2);
  ASSERT_TRUE(eventually([&] { return follower_log_->log_end_offset() == 1; }));
}

// A follower whose leader hangs (SIGSTOPped: the Fetch is never answered)
// must still be able to stop following at once: LeaderAndIsr moves the
// partition elsewhere while the Fetch is in flight (it used to wait for the
// Fetch to time out, replica.socket.timeout.ms, stalling the broker).
TEST_F(ReplicaFetcherTest, RemoveDoesNotWaitForAFetchToAHungLeader) {
  append(*leader_log_, 1, "a");
  start(1);
  ASSERT_TRUE(eventually([&] { return follower_log_->log_end_offset() == 1; }));
  leader_->hang();
  ASSERT_TRUE(eventually([&] { return leader_->hung() == 1; }));
  append(*leader_log_, 1, "b");
  fetchers_->remove(TopicPartition("t", 0));
  EXPECT_EQ(leader_->hung(), 1);  // returned while the Fetch is still unanswered
  EXPECT_EQ(fetchers_->thread_count(), 0u);
  // The caller now owns the log: the late answer is dropped, not appended.
  ASSERT_TRUE(follower_log_->truncate_to(0));
  leader_->release();
  ASSERT_TRUE(eventually([&] { return leader_->hung() == 0; }));
  fetchers_->shutdown();  // joins the retired thread
  EXPECT_EQ(follower_log_->log_end_offset(), 0);
}

}  // namespace
}  // namespace spool::replica
