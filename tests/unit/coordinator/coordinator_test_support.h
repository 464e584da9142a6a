// Test support for the group coordinator: an in-memory OffsetsLog, a fixture
// on a ManualClock (no reaper threads: timers move only in advance()), and
// helpers that capture asynchronous answers.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/group/group_coordinator.h"
#include "coordinator/group/group_records.h"
#include "util/clock.h"

namespace spool::coordinator::testing {

class FakeOffsetsLog : public OffsetsLog {
 public:
  explicit FakeOffsetsLog(int32_t partitions = 4) : data_(partitions) {}
  int32_t partition_count() const override { return static_cast<int32_t>(data_.size()); }
  void append(int32_t partition, std::vector<LogRecord> records, std::function<void(Status)> done) override {
    Status result;
    {
      std::lock_guard g(mu_);
      ++appends_;
      if (fail_next_) {
        result = *fail_next_;
        fail_next_.reset();
      } else {
        for (auto& r : records) data_.at(partition).push_back(std::move(r));
      }
      if (hold_) {
        held_.push_back([done = std::move(done), result] { done(result); });
        return;
      }
    }
    done(result);
  }
  Status read_all(int32_t partition, const std::function<void(const LogRecord&)>& visit) override {
    std::vector<LogRecord> copy;
    {
      std::lock_guard g(mu_);
      if (read_error_) return *read_error_;
      copy = data_.at(partition);
    }
    for (const auto& r : copy) visit(r);
    return Status::ok();
  }

  void fail_next_append(Status s) {
    std::lock_guard g(mu_);
    fail_next_ = std::move(s);
  }
  void set_read_error(std::optional<Status> s) {
    std::lock_guard g(mu_);
    read_error_ = std::move(s);
  }
  // While held, appends are recorded but acknowledged only by release().
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
  std::vector<LogRecord> records(int32_t partition) {
    std::lock_guard g(mu_);
    return data_.at(partition);
  }
  void add_raw(int32_t partition, LogRecord r) {
    std::lock_guard g(mu_);
    data_.at(partition).push_back(std::move(r));
  }
  int appends() {
    std::lock_guard g(mu_);
    return appends_;
  }

 private:
  std::mutex mu_;
  std::vector<std::vector<LogRecord>> data_;
  std::optional<Status> fail_next_;
  std::optional<Status> read_error_;
  bool hold_ = false;
  std::vector<std::function<void()>> held_;
  int appends_ = 0;
};

// ConsumerProtocol subscription v0: int16 version, topics, null user data.
inline Bytes subscription(const std::vector<std::string>& topics) {
  ByteWriter w;
  w.i16(0);
  w.i32(static_cast<int32_t>(topics.size()));
  for (const auto& t : topics) {
    w.i16(static_cast<int16_t>(t.size()));
    w.bytes(t);
  }
  w.i32(-1);
  return w.take();
}

inline Bytes bytes_of(const std::string& s) { return Bytes(s.begin(), s.end()); }

template <typename T>
struct Answer {
  std::shared_ptr<std::optional<T>> slot = std::make_shared<std::optional<T>>();
  std::shared_ptr<int> calls = std::make_shared<int>(0);
  std::function<void(T)> callback() {
    return [s = slot, c = calls](T v) {
      ++*c;
      *s = std::move(v);
    };
  }
  bool ready() const { return slot->has_value(); }
  T& get() const { return **slot; }
};

class CoordinatorTest : public ::testing::Test {
 protected:
  static constexpr int64_t kWallBase = 1'700'000'000'000;

  GroupCoordinatorOptions options() {
    GroupCoordinatorOptions o;
    o.clock = clock_;
    o.start_reaper = false;
    o.group_initial_rebalance_delay_ms = 0;
    o.offsets_retention_ms = 24 * 3600 * 1000;
    return o;
  }
  void SetUp() override { start(options()); }
  void TearDown() override {
    if (coord_) coord_->shutdown();
  }
  void start(GroupCoordinatorOptions o) {
    if (coord_) coord_->shutdown();
    coord_ = std::make_unique<GroupCoordinator>(log_, std::move(o));
    for (int32_t p = 0; p < log_.partition_count(); ++p) ASSERT_TRUE(coord_->load_partition(p).is_ok());
  }
  void advance(int64_t ms) {
    clock_->advance(ms);
    coord_->advance_clock(0);
  }

  Answer<JoinGroupResult> join(const std::string& group, const std::string& member_id,
                               std::vector<std::pair<std::string, Bytes>> protocols = {},
                               std::optional<std::string> instance = std::nullopt, int32_t session_ms = 10000,
                               int32_t rebalance_ms = 30000, bool require_known = false,
                               const std::string& protocol_type = "consumer") {
    if (protocols.empty()) protocols = {{"range", subscription({"t"})}};
    JoinGroupParams p;
    p.group_id = group;
    p.member_id = member_id;
    p.group_instance_id = std::move(instance);
    p.client_id = "client";
    p.client_host = "/127.0.0.1";
    p.session_timeout_ms = session_ms;
    p.rebalance_timeout_ms = rebalance_ms;
    p.protocol_type = protocol_type;
    p.protocols = std::move(protocols);
    p.require_known_member_id = require_known;
    Answer<JoinGroupResult> a;
    coord_->join_group(std::move(p), a.callback());
    return a;
  }
  Answer<SyncGroupResult> sync(const std::string& group, const std::string& member_id, int32_t generation,
                               std::vector<std::pair<std::string, Bytes>> assignments = {},
                               std::optional<std::string> instance = std::nullopt) {
    SyncGroupParams p;
    p.group_id = group;
    p.member_id = member_id;
    p.generation_id = generation;
    p.group_instance_id = std::move(instance);
    p.assignments = std::move(assignments);
    Answer<SyncGroupResult> a;
    coord_->sync_group(std::move(p), a.callback());
    return a;
  }
  // One member joins an empty group and syncs: returns (member id, generation).
  std::pair<std::string, int32_t> stable_single(const std::string& group, const std::string& topic = "t") {
    auto j = join(group, "", {{"range", subscription({topic})}});
    EXPECT_TRUE(j.ready());
    EXPECT_EQ(j.get().error, ErrorCode::kNone);
    auto s = sync(group, j.get().member_id, j.get().generation_id, {{j.get().member_id, bytes_of("A")}});
    EXPECT_TRUE(s.ready());
    EXPECT_EQ(s.get().error, ErrorCode::kNone);
    return {j.get().member_id, j.get().generation_id};
  }
  PartitionErrors commit(const std::string& group, const std::string& member_id, int32_t generation,
                         std::vector<OffsetCommitEntry> offsets) {
    OffsetCommitParams p;
    p.group_id = group;
    p.member_id = member_id;
    p.generation_id = generation;
    p.offsets = std::move(offsets);
    Answer<PartitionErrors> a;
    coord_->commit_offsets(std::move(p), a.callback());
    EXPECT_TRUE(a.ready());
    return a.ready() ? a.get() : PartitionErrors{};
  }
  std::string state_of(const std::string& group) { return coord_->describe_groups({group}).at(0).state; }

  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(1000, kWallBase + 1000);
  FakeOffsetsLog log_;
  std::unique_ptr<GroupCoordinator> coord_;
};

inline OffsetCommitEntry entry(const std::string& topic, int32_t partition, int64_t offset,
                               std::optional<std::string> metadata = std::string("m")) {
  OffsetCommitEntry e;
  e.tp = {topic, partition};
  e.offset = offset;
  e.metadata = std::move(metadata);
  return e;
}

}  // namespace spool::coordinator::testing
