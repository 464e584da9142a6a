// Transactional offset commits in the group coordinator: pending offsets are
// invisible until the COMMIT marker, require_stable answers
// UNSTABLE_OFFSET_COMMIT meanwhile, ABORT drops them, and loading replays
// transactional batches and markers (commit, abort, none yet).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>

#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/group_records.h"
#include "coordinator_test_support.h"
#include "timer/clock.h"

namespace spool::coordinator::testing {
namespace {

// An in-memory log that keeps transactional batches and markers in order,
// and fences a producer epoch below the highest one it has seen.
class TxnFakeLog : public OffsetsLog {
 public:
  explicit TxnFakeLog(int32_t partitions = 4) : data_(partitions) {}
  int32_t partition_count() const override { return static_cast<int32_t>(data_.size()); }
  void append(int32_t partition, std::vector<LogRecord> records, std::function<void(Status)> done) override {
    {
      std::lock_guard g(mu_);
      for (auto& r : records) {
        ReplayEntry e;
        e.record = std::move(r);
        data_.at(partition).push_back(std::move(e));
      }
    }
    done(Status::ok());
  }
  void append_transactional(int32_t partition, const TxnProducer& producer, std::vector<LogRecord> records,
                            std::function<void(Status)> done) override {
    Status result;
    {
      std::lock_guard g(mu_);
      ++txn_appends_;
      auto& epoch = epochs_[producer.producer_id];
      if (producer.producer_epoch < epoch) {
        result = Status::error("fenced", static_cast<int16_t>(ErrorCode::kInvalidProducerEpoch));
      } else {
        epoch = producer.producer_epoch;
        for (auto& r : records) {
          ReplayEntry e;
          e.producer_id = producer.producer_id;
          e.transactional = true;
          e.record = std::move(r);
          data_.at(partition).push_back(std::move(e));
        }
      }
      if (hold_) {
        held_.push_back([done = std::move(done), result] { done(result); });
        return;
      }
    }
    done(result);
  }
  Status read_all(int32_t partition, const std::function<void(const LogRecord&)>& visit) override {
    return replay(partition, [&](const ReplayEntry& e) {
      if (e.kind == ReplayEntry::Kind::kRecord) visit(e.record);
    });
  }
  Status replay(int32_t partition, const std::function<void(const ReplayEntry&)>& visit) override {
    std::vector<ReplayEntry> copy;
    {
      std::lock_guard g(mu_);
      copy = data_.at(partition);
    }
    for (const auto& e : copy) visit(e);
    if (during_replay_) {
      auto hook = std::move(during_replay_);
      during_replay_ = nullptr;
      hook();
    }
    return Status::ok();
  }

  void add_marker(int32_t partition, int64_t producer_id, bool commit) {
    std::lock_guard g(mu_);
    ReplayEntry e;
    e.kind = commit ? ReplayEntry::Kind::kCommitMarker : ReplayEntry::Kind::kAbortMarker;
    e.producer_id = producer_id;
    e.transactional = true;
    data_.at(partition).push_back(std::move(e));
  }
  void hold(bool on) {
    std::lock_guard g(mu_);
    hold_ = on;
  }
  void release() {
    std::vector<std::function<void()>> ready;
    {
      std::lock_guard g(mu_);
      ready.swap(held_);
    }
    for (auto& f : ready) f();
  }
  // Runs once at the end of the next replay (a marker landing mid-load).
  void on_next_replay(std::function<void()> f) { during_replay_ = std::move(f); }
  int txn_appends() {
    std::lock_guard g(mu_);
    return txn_appends_;
  }

 private:
  std::mutex mu_;
  std::vector<std::vector<ReplayEntry>> data_;
  std::map<int64_t, int16_t> epochs_;
  bool hold_ = false;
  std::vector<std::function<void()>> held_;
  std::function<void()> during_replay_;
  int txn_appends_ = 0;
};

class TxnOffsetsTest : public ::testing::Test {
 protected:
  void SetUp() override { restart(); }
  void TearDown() override {
    if (coord_) coord_->shutdown();
  }
  void restart() {
    if (coord_) coord_->shutdown();
    GroupCoordinatorOptions o;
    o.clock = clock_;
    o.start_reaper = false;
    o.group_initial_rebalance_delay_ms = 0;
    o.offsets_retention_ms = 24 * 3600 * 1000;
    coord_ = std::make_unique<GroupCoordinator>(log_, std::move(o));
    for (int32_t p = 0; p < log_.partition_count(); ++p) ASSERT_TRUE(coord_->load_partition(p).is_ok());
  }

  PartitionErrors txn_commit(const std::string& group, int64_t pid, int16_t epoch,
                             std::vector<OffsetCommitEntry> offsets, const std::string& member = "",
                             int32_t generation = -1, std::optional<std::string> instance = std::nullopt) {
    auto a = txn_commit_async(group, pid, epoch, std::move(offsets), member, generation, std::move(instance));
    EXPECT_TRUE(a.ready());
    return a.ready() ? a.get() : PartitionErrors{};
  }
  Answer<PartitionErrors> txn_commit_async(const std::string& group, int64_t pid, int16_t epoch,
                                           std::vector<OffsetCommitEntry> offsets, const std::string& member = "",
                                           int32_t generation = -1,
                                           std::optional<std::string> instance = std::nullopt) {
    TxnOffsetCommitParams p;
    p.transactional_id = "tx";
    p.group_id = group;
    p.producer_id = pid;
    p.producer_epoch = epoch;
    p.member_id = member;
    p.generation_id = generation;
    p.group_instance_id = std::move(instance);
    p.offsets = std::move(offsets);
    Answer<PartitionErrors> a;
    coord_->commit_txn_offsets(std::move(p), a.callback());
    return a;
  }
  PartitionErrors plain_commit(const std::string& group, std::vector<OffsetCommitEntry> offsets) {
    OffsetCommitParams p;
    p.group_id = group;
    p.offsets = std::move(offsets);
    Answer<PartitionErrors> a;
    coord_->commit_offsets(std::move(p), a.callback());
    EXPECT_TRUE(a.ready());
    return a.ready() ? a.get() : PartitionErrors{};
  }
  CommittedOffset fetch_one(const std::string& group, const std::string& topic, int32_t partition,
                            bool require_stable) {
    auto r = coord_->fetch_offsets(group, std::vector<TopicPartitionKey>{{topic, partition}}, require_stable);
    EXPECT_EQ(r.error, ErrorCode::kNone);
    EXPECT_EQ(r.offsets.size(), 1u);
    return r.offsets.empty() ? CommittedOffset{} : r.offsets[0];
  }
  void marker(const std::string& group, int64_t pid, bool commit) {
    const int32_t p = coord_->partition_for(group);
    log_.add_marker(p, pid, commit);
    coord_->complete_txn_offsets(p, pid, commit);
  }
  static PartitionErrors all(std::vector<std::pair<TopicPartitionKey, ErrorCode>> v) { return v; }

  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(1000, 1'700'000'000'000 + 1000);
  TxnFakeLog log_;
  std::unique_ptr<GroupCoordinator> coord_;
};

TEST_F(TxnOffsetsTest, PendingOffsetIsInvisibleAndUnstable) {
  EXPECT_EQ(plain_commit("g", {entry("t", 0, 5)}), all({{{"t", 0}, ErrorCode::kNone}}));
  EXPECT_EQ(txn_commit("g", 7, 0, {entry("t", 0, 10), entry("t", 1, 3)}),
            all({{{"t", 0}, ErrorCode::kNone}, {{"t", 1}, ErrorCode::kNone}}));
  EXPECT_EQ(log_.txn_appends(), 1);

  auto loose = fetch_one("g", "t", 0, false);
  EXPECT_EQ(loose.error, ErrorCode::kNone);
  EXPECT_EQ(loose.offset, 5);
  auto stable = fetch_one("g", "t", 0, true);
  EXPECT_EQ(stable.error, ErrorCode::kUnstableOffsetCommit);
  EXPECT_EQ(stable.offset, -1);
  EXPECT_EQ(fetch_one("g", "t", 1, false).offset, -1);
  EXPECT_EQ(fetch_one("g", "t", 1, true).error, ErrorCode::kUnstableOffsetCommit);
  // A partition outside the transaction is stable.
  EXPECT_EQ(fetch_one("g", "t", 2, true).error, ErrorCode::kNone);
  // The all-partitions form ignores require_stable and lists committed ones only (Kafka).
  auto every = coord_->fetch_offsets("g", std::nullopt, true);
  ASSERT_EQ(every.offsets.size(), 1u);
  EXPECT_EQ(every.offsets[0].offset, 5);
}

TEST_F(TxnOffsetsTest, CommitMarkerMakesOffsetsVisible) {
  plain_commit("g", {entry("t", 0, 5)});
  txn_commit("g", 7, 0, {entry("t", 0, 10, "meta"), entry("t", 1, 3)});
  marker("g", 7, true);
  auto c = fetch_one("g", "t", 0, true);
  EXPECT_EQ(c.error, ErrorCode::kNone);
  EXPECT_EQ(c.offset, 10);
  EXPECT_EQ(c.metadata, "meta");
  EXPECT_EQ(fetch_one("g", "t", 1, true).offset, 3);
  // A repeated marker changes nothing.
  coord_->complete_txn_offsets(coord_->partition_for("g"), 7, false);
  EXPECT_EQ(fetch_one("g", "t", 0, true).offset, 10);
}

TEST_F(TxnOffsetsTest, AbortMarkerDropsOffsets) {
  plain_commit("g", {entry("t", 0, 5)});
  txn_commit("g", 7, 0, {entry("t", 0, 10)});
  marker("g", 7, false);
  auto c = fetch_one("g", "t", 0, true);
  EXPECT_EQ(c.error, ErrorCode::kNone);
  EXPECT_EQ(c.offset, 5);
}

TEST_F(TxnOffsetsTest, MarkersOfOtherProducersOrPartitionsDoNotComplete) {
  txn_commit("g", 7, 0, {entry("t", 0, 10)});
  const int32_t p = coord_->partition_for("g");
  coord_->complete_txn_offsets(p, 8, true);
  coord_->complete_txn_offsets((p + 1) % log_.partition_count(), 7, true);
  EXPECT_EQ(fetch_one("g", "t", 0, true).error, ErrorCode::kUnstableOffsetCommit);
  EXPECT_EQ(fetch_one("g", "t", 0, false).offset, -1);
}

TEST_F(TxnOffsetsTest, TwoProducersCompleteIndependently) {
  txn_commit("g", 1, 0, {entry("t", 0, 10)});
  txn_commit("g", 2, 0, {entry("t", 1, 20)});
  marker("g", 2, true);
  EXPECT_EQ(fetch_one("g", "t", 1, true).offset, 20);
  EXPECT_EQ(fetch_one("g", "t", 0, true).error, ErrorCode::kUnstableOffsetCommit);
  marker("g", 1, false);
  EXPECT_EQ(fetch_one("g", "t", 0, true).error, ErrorCode::kNone);
  EXPECT_EQ(fetch_one("g", "t", 0, true).offset, -1);
}

TEST_F(TxnOffsetsTest, LaterPlainCommitWinsOverEarlierTransaction) {
  txn_commit("g", 7, 0, {entry("t", 0, 10)});
  plain_commit("g", {entry("t", 0, 20)});
  marker("g", 7, true);
  EXPECT_EQ(fetch_one("g", "t", 0, true).offset, 20);
  restart();
  EXPECT_EQ(fetch_one("g", "t", 0, true).offset, 20);
}

TEST_F(TxnOffsetsTest, ReloadAppliesCommitDropsAbortKeepsOpen) {
  plain_commit("g", {entry("t", 0, 1), entry("t", 1, 1), entry("t", 2, 1)});
  txn_commit("g", 1, 0, {entry("t", 0, 10)});
  txn_commit("g", 2, 0, {entry("t", 1, 20)});
  txn_commit("g", 3, 0, {entry("t", 2, 30)});
  const int32_t p = coord_->partition_for("g");
  log_.add_marker(p, 1, true);
  log_.add_marker(p, 2, false);
  // Producer 3's marker never made it before the restart.
  restart();
  EXPECT_EQ(fetch_one("g", "t", 0, true).offset, 10);
  auto aborted = fetch_one("g", "t", 1, true);
  EXPECT_EQ(aborted.error, ErrorCode::kNone);
  EXPECT_EQ(aborted.offset, 1);
  auto open = fetch_one("g", "t", 2, true);
  EXPECT_EQ(open.error, ErrorCode::kUnstableOffsetCommit);
  EXPECT_EQ(fetch_one("g", "t", 2, false).offset, 1);
  // The marker, resent after the restart, completes it.
  marker("g", 3, true);
  EXPECT_EQ(fetch_one("g", "t", 2, true).offset, 30);
  restart();
  EXPECT_EQ(fetch_one("g", "t", 2, true).offset, 30);
}

TEST_F(TxnOffsetsTest, ReloadCreatesGroupHoldingOnlyPendingOffsets) {
  txn_commit("fresh", 4, 0, {entry("t", 0, 40)});
  restart();
  EXPECT_EQ(fetch_one("fresh", "t", 0, true).error, ErrorCode::kUnstableOffsetCommit);
  EXPECT_EQ(coord_->describe_groups({"fresh"}).at(0).state, "Empty");
  marker("fresh", 4, true);
  EXPECT_EQ(fetch_one("fresh", "t", 0, true).offset, 40);
}

TEST_F(TxnOffsetsTest, MarkerArrivingWhileLoadingIsApplied) {
  txn_commit("g", 5, 0, {entry("t", 0, 50)});
  const int32_t p = coord_->partition_for("g");
  coord_->shutdown();
  coord_.reset();
  GroupCoordinatorOptions o;
  o.clock = clock_;
  o.start_reaper = false;
  coord_ = std::make_unique<GroupCoordinator>(log_, std::move(o));
  // The marker lands after the replay read past it but before the load ends.
  log_.on_next_replay([this, p] { coord_->complete_txn_offsets(p, 5, true); });
  ASSERT_TRUE(coord_->load_partition(p).is_ok());
  EXPECT_EQ(fetch_one("g", "t", 0, true).offset, 50);
}

TEST_F(TxnOffsetsTest, MemberChecksWhenGiven) {
  JoinGroupParams jp;
  jp.group_id = "g";
  jp.client_id = "c";
  jp.client_host = "/h";
  jp.session_timeout_ms = 10000;
  jp.rebalance_timeout_ms = 10000;
  jp.protocol_type = "consumer";
  jp.protocols = {{"range", subscription({"t"})}};
  jp.group_instance_id = "inst";
  Answer<JoinGroupResult> j;
  coord_->join_group(jp, j.callback());
  ASSERT_TRUE(j.ready());
  ASSERT_EQ(j.get().error, ErrorCode::kNone);
  const std::string member = j.get().member_id;
  const int32_t gen = j.get().generation_id;

  auto only = [](ErrorCode e) { return all({{{"t", 0}, e}}); };
  EXPECT_EQ(txn_commit("g", 1, 0, {entry("t", 0, 1)}, "nobody", gen), only(ErrorCode::kUnknownMemberId));
  EXPECT_EQ(txn_commit("g", 1, 0, {entry("t", 0, 1)}, member, gen + 1, "inst"), only(ErrorCode::kIllegalGeneration));
  EXPECT_EQ(txn_commit("g", 1, 0, {entry("t", 0, 1)}, "other-id", gen, "inst"), only(ErrorCode::kFencedInstanceId));
  // Nothing was written by the refused requests.
  EXPECT_EQ(log_.txn_appends(), 0);
  EXPECT_EQ(fetch_one("g", "t", 0, true).error, ErrorCode::kNone);
  EXPECT_EQ(txn_commit("g", 1, 0, {entry("t", 0, 1)}, member, gen, "inst"), only(ErrorCode::kNone));
  // v0-2 carry no member identity: accepted whatever the group's state.
  EXPECT_EQ(txn_commit("g", 1, 0, {entry("t", 1, 1)}), all({{{"t", 1}, ErrorCode::kNone}}));
}

TEST_F(TxnOffsetsTest, InvalidRequests) {
  EXPECT_EQ(txn_commit("", 1, 0, {entry("t", 0, 1)}), all({{{"t", 0}, ErrorCode::kInvalidGroupId}}));
  EXPECT_EQ(txn_commit("g", -1, 0, {entry("t", 0, 1)}), all({{{"t", 0}, ErrorCode::kInvalidProducerIdMapping}}));
  std::string big(5000, 'x');
  EXPECT_EQ(txn_commit("g", 1, 0, {entry("t", 0, 1, big), entry("t", 1, 2)}),
            all({{{"t", 0}, ErrorCode::kOffsetMetadataTooLarge}, {{"t", 1}, ErrorCode::kNone}}));
  EXPECT_EQ(fetch_one("g", "t", 0, true).error, ErrorCode::kNone);
  EXPECT_EQ(fetch_one("g", "t", 1, true).error, ErrorCode::kUnstableOffsetCommit);
}

TEST_F(TxnOffsetsTest, FencedEpochFailsAndLeavesNothingPending) {
  EXPECT_EQ(txn_commit("g", 9, 3, {entry("t", 0, 1)}), all({{{"t", 0}, ErrorCode::kNone}}));
  marker("g", 9, true);
  EXPECT_EQ(txn_commit("g", 9, 2, {entry("t", 0, 99)}), all({{{"t", 0}, ErrorCode::kInvalidProducerEpoch}}));
  auto c = fetch_one("g", "t", 0, true);
  EXPECT_EQ(c.error, ErrorCode::kNone);
  EXPECT_EQ(c.offset, 1);
}

TEST_F(TxnOffsetsTest, UnstableWhileAppendInFlight) {
  log_.hold(true);
  auto a = txn_commit_async("g", 1, 0, {entry("t", 0, 10)});
  EXPECT_FALSE(a.ready());
  EXPECT_EQ(fetch_one("g", "t", 0, true).error, ErrorCode::kUnstableOffsetCommit);
  log_.hold(false);
  log_.release();
  ASSERT_TRUE(a.ready());
  EXPECT_EQ(a.get(), all({{{"t", 0}, ErrorCode::kNone}}));
  marker("g", 1, true);
  EXPECT_EQ(fetch_one("g", "t", 0, true).offset, 10);
}

TEST_F(TxnOffsetsTest, PendingOffsetsBlockExpiry) {
  plain_commit("g", {entry("t", 0, 5), entry("t", 1, 6)});
  txn_commit("g", 1, 0, {entry("t", 0, 10)});
  clock_->advance(2LL * 24 * 3600 * 1000);
  EXPECT_EQ(coord_->expire_offsets_now(), 1);  // t-1 only
  EXPECT_EQ(fetch_one("g", "t", 0, false).offset, 5);
  EXPECT_EQ(fetch_one("g", "t", 1, false).offset, -1);
  // A group holding only a pending transaction survives the retention pass.
  txn_commit("only-pending", 2, 0, {entry("t", 0, 1)});
  clock_->advance(2LL * 24 * 3600 * 1000);
  coord_->expire_offsets_now();
  EXPECT_EQ(coord_->describe_groups({"only-pending"}).at(0).state, "Empty");
  marker("only-pending", 2, true);
  EXPECT_EQ(fetch_one("only-pending", "t", 0, true).offset, 1);
}

TEST_F(TxnOffsetsTest, DeletingGroupWithPendingOffsetsDeletesIt) {
  plain_commit("g", {entry("t", 0, 5)});
  txn_commit("g", 1, 0, {entry("t", 0, 10)});
  Answer<std::vector<std::pair<std::string, ErrorCode>>> d;
  coord_->delete_groups({"g"}, d.callback());
  ASSERT_TRUE(d.ready());
  ASSERT_EQ(d.get().size(), 1u);
  EXPECT_EQ(d.get()[0].second, ErrorCode::kNone);
  marker("g", 1, true);
  auto c = fetch_one("g", "t", 0, true);
  EXPECT_EQ(c.error, ErrorCode::kNone);
  EXPECT_EQ(c.offset, -1);
  restart();
  EXPECT_EQ(fetch_one("g", "t", 0, true).offset, -1);
}

TEST_F(TxnOffsetsTest, NotCoordinatorForUnloadedPartition) {
  const int32_t p = coord_->partition_for("g");
  coord_->unload_partition(p);
  EXPECT_EQ(txn_commit("g", 1, 0, {entry("t", 0, 1)}), all({{{"t", 0}, ErrorCode::kNotCoordinator}}));
}

TEST(TxnOffsetsDefaults, LogWithoutTransactionsRefusesTransactionalAppends) {
  FakeOffsetsLog log(2);
  GroupCoordinatorOptions o;
  o.start_reaper = false;
  GroupCoordinator coord(log, o);
  for (int32_t p = 0; p < 2; ++p) ASSERT_TRUE(coord.load_partition(p).is_ok());
  TxnOffsetCommitParams p;
  p.group_id = "g";
  p.producer_id = 1;
  p.producer_epoch = 0;
  p.offsets = {entry("t", 0, 1)};
  Answer<PartitionErrors> a;
  coord.commit_txn_offsets(p, a.callback());
  ASSERT_TRUE(a.ready());
  EXPECT_EQ(a.get().at(0).second, ErrorCode::kUnsupportedVersion);
  auto f = coord.fetch_offsets("g", std::vector<TopicPartitionKey>{{"t", 0}}, true);
  EXPECT_EQ(f.offsets.at(0).error, ErrorCode::kNone);
  coord.shutdown();
}

}  // namespace
}  // namespace spool::coordinator::testing
