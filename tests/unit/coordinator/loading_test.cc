// Loading __consumer_offsets partitions: restart over the same log, load
// status, bad records.
#include "coordinator_test_support.h"

namespace spool::coordinator {
namespace {

using testing::bytes_of;
using testing::entry;

class Loading : public testing::CoordinatorTest {
 protected:
  int64_t committed(const std::string& g, const std::string& topic, int32_t p) {
    auto r = coord_->fetch_offsets(g, std::vector<TopicPartitionKey>{{topic, p}}, false);
    EXPECT_EQ(r.error, ErrorCode::kNone);
    return r.offsets.empty() ? -2 : r.offsets[0].offset;
  }
};

TEST_F(Loading, RestartReproducesGroupsAndOffsets) {
  auto [a, gen] = stable_single("g", "t");
  commit("g", a, gen, {entry("t", 0, 5), entry("t", 1, 6)});
  commit("g", a, gen, {entry("t", 0, 7)});
  commit("simple", "", -1, {entry("x", 0, 1), entry("x", 1, 2)});
  commit("deleted", "", -1, {entry("x", 0, 3)});
  testing::Answer<std::vector<std::pair<std::string, ErrorCode>>> del;
  coord_->delete_groups({"deleted"}, del.callback());
  ASSERT_TRUE(del.ready());

  start(options());  // a new coordinator over the same log

  EXPECT_EQ(state_of("g"), "Stable");
  auto d = coord_->describe_groups({"g"});
  ASSERT_EQ(d[0].members.size(), 1u);
  EXPECT_EQ(d[0].members[0].member_id, a);
  EXPECT_EQ(d[0].members[0].assignment, bytes_of("A"));
  EXPECT_EQ(d[0].protocol_name, "range");
  EXPECT_EQ(committed("g", "t", 0), 7);
  EXPECT_EQ(committed("g", "t", 1), 6);
  EXPECT_EQ(committed("simple", "x", 1), 2);
  EXPECT_EQ(state_of("simple"), "Empty");
  EXPECT_EQ(state_of("deleted"), "Dead");
  EXPECT_EQ(committed("deleted", "x", 0), -1);
  // The loaded member carries on in its generation...
  EXPECT_EQ(coord_->heartbeat("g", a, std::nullopt, gen), ErrorCode::kNone);
  EXPECT_EQ(sync("g", a, gen).get().assignment, bytes_of("A"));
  // ...and expires if it never comes back.
  advance(10001);
  EXPECT_EQ(state_of("g"), "Empty");
}

TEST_F(Loading, StatusBeforeDuringAndAfterLoad) {
  testing::FakeOffsetsLog log2(3);
  GroupCoordinatorOptions o = options();
  GroupCoordinator c(log2, o);
  const std::string group = "g";
  const int32_t p = c.partition_for(group);
  EXPECT_EQ(c.coordinator_status(group), ErrorCode::kNotCoordinator);
  EXPECT_EQ(c.heartbeat(group, "m", std::nullopt, 1), ErrorCode::kNotCoordinator);

  // Observe the status from inside the replay.
  log2.add_raw(p, LogRecord{encode_key(OffsetRecordKey{group, "t", 0}),
                            encode_value(OffsetRecordValue{9, -1, "", 1, -1})});
  struct Spy : public OffsetsLog {
    testing::FakeOffsetsLog& inner;
    GroupCoordinator* c = nullptr;
    std::vector<ErrorCode> seen;
    explicit Spy(testing::FakeOffsetsLog& i) : inner(i) {}
    int32_t partition_count() const override { return inner.partition_count(); }
    void append(int32_t p, std::vector<LogRecord> r, std::function<void(Status)> d) override {
      inner.append(p, std::move(r), std::move(d));
    }
    Status read_all(int32_t p, const std::function<void(const LogRecord&)>& v) override {
      seen.push_back(c->coordinator_status("g"));
      seen.push_back(c->is_loading(p) ? ErrorCode::kNone : ErrorCode::kUnknownServerError);
      seen.push_back(c->fetch_offsets("g", std::nullopt, false).error);
      JoinGroupParams jp;
      jp.group_id = "g";
      jp.session_timeout_ms = 10000;
      jp.protocol_type = "consumer";
      jp.protocols = {{"range", Bytes{}}};
      ErrorCode join_error = ErrorCode::kNone;
      c->join_group(jp, [&](JoinGroupResult r) { join_error = r.error; });
      seen.push_back(join_error);
      return inner.read_all(p, v);
    }
  } spy(log2);
  GroupCoordinator c2(spy, o);
  spy.c = &c2;
  ASSERT_TRUE(c2.load_partition(p).is_ok());
  ASSERT_EQ(spy.seen.size(), 4u);
  EXPECT_EQ(spy.seen[0], ErrorCode::kCoordinatorLoadInProgress);
  EXPECT_EQ(spy.seen[1], ErrorCode::kNone);
  EXPECT_EQ(spy.seen[2], ErrorCode::kCoordinatorLoadInProgress);
  EXPECT_EQ(spy.seen[3], ErrorCode::kCoordinatorLoadInProgress);
  EXPECT_EQ(c2.coordinator_status(group), ErrorCode::kNone);
  EXPECT_FALSE(c2.is_loading(p));
  auto r = c2.fetch_offsets(group, std::nullopt, false);
  ASSERT_EQ(r.offsets.size(), 1u);
  EXPECT_EQ(r.offsets[0].offset, 9);

  c2.unload_partition(p);
  EXPECT_EQ(c2.coordinator_status(group), ErrorCode::kNotCoordinator);
  EXPECT_EQ(c2.fetch_offsets(group, std::nullopt, false).error, ErrorCode::kNotCoordinator);
}

TEST_F(Loading, UnloadAnswersPendingJoinsNotCoordinator) {
  auto [a, gen] = stable_single("g");
  auto jb = join("g", "");
  EXPECT_FALSE(jb.ready());
  coord_->unload_partition(coord_->partition_for("g"));
  ASSERT_TRUE(jb.ready());
  EXPECT_EQ(jb.get().error, ErrorCode::kNotCoordinator);
}

TEST_F(Loading, CorruptRecordFailsTheLoadCleanly) {
  testing::FakeOffsetsLog log2(2);
  log2.add_raw(1, LogRecord{Bytes{0, 9, 1}, Bytes{1}});
  GroupCoordinator c(log2, options());
  Status s = c.load_partition(1);
  EXPECT_FALSE(s.is_ok());
  EXPECT_FALSE(c.is_loading(1));
  EXPECT_TRUE(c.load_partition(0).is_ok());
  EXPECT_FALSE(c.load_partition(7).is_ok());
  log2.set_read_error(Status::error("io", static_cast<int16_t>(ErrorCode::kKafkaStorageError)));
  testing::FakeOffsetsLog log3(1);
  GroupCoordinator c3(log2, options());
  EXPECT_FALSE(c3.load_partition(0).is_ok());
}

TEST_F(Loading, TombstonesAndLaterRecordsWin) {
  testing::FakeOffsetsLog log2(1);
  auto key = encode_key(OffsetRecordKey{"g", "t", 0});
  log2.add_raw(0, LogRecord{key, encode_value(OffsetRecordValue{1, -1, "", 1, -1})});
  log2.add_raw(0, LogRecord{key, encode_value(OffsetRecordValue{2, -1, "", 1, -1})});
  log2.add_raw(0, LogRecord{encode_key(OffsetRecordKey{"g", "t", 1}), encode_value(OffsetRecordValue{3, -1, "", 1, -1})});
  log2.add_raw(0, LogRecord{encode_key(OffsetRecordKey{"g", "t", 1}), std::nullopt});
  GroupCoordinator c(log2, options());
  ASSERT_TRUE(c.load_partition(0).is_ok());
  auto r = c.fetch_offsets("g", std::nullopt, false);
  ASSERT_EQ(r.offsets.size(), 1u);
  EXPECT_EQ(r.offsets[0].tp.partition, 0);
  EXPECT_EQ(r.offsets[0].offset, 2);
}

TEST_F(Loading, StaticMembershipSurvivesRestart) {
  auto j = join("g", "", {}, std::string("inst"));
  const std::string old_id = j.get().member_id;
  sync("g", old_id, 1, {{old_id, bytes_of("A")}}, std::string("inst"));
  start(options());
  auto again = join("g", "", {}, std::string("inst"));
  ASSERT_TRUE(again.ready());
  EXPECT_EQ(again.get().error, ErrorCode::kNone);
  EXPECT_EQ(again.get().generation_id, 1);  // no rebalance
  EXPECT_EQ(sync("g", again.get().member_id, 1, {}, std::string("inst")).get().assignment, bytes_of("A"));
  EXPECT_EQ(coord_->heartbeat("g", old_id, std::string("inst"), 1), ErrorCode::kFencedInstanceId);
}

TEST_F(Loading, GroupThatEmptiedComesBackEmptyWithItsGeneration) {
  auto [a, gen] = stable_single("g");
  commit("g", a, gen, {entry("t", 0, 3)});
  coord_->leave_group("g", {{a, std::nullopt}});
  ASSERT_EQ(state_of("g"), "Empty");
  start(options());
  EXPECT_EQ(state_of("g"), "Empty");
  EXPECT_EQ(committed("g", "t", 0), 3);
  auto j = join("g", "");
  ASSERT_TRUE(j.ready());
  EXPECT_EQ(j.get().generation_id, gen + 2);  // gen+1 was the empty generation
}

}  // namespace
}  // namespace spool::coordinator
