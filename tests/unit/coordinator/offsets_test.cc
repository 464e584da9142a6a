// OffsetCommit / OffsetFetch / OffsetDelete / DeleteGroups / retention.
#include "coordinator_test_support.h"

namespace spool::coordinator {
namespace {

using testing::bytes_of;
using testing::entry;

class Offsets : public testing::CoordinatorTest {
 protected:
  OffsetFetchResult fetch_all(const std::string& g) { return coord_->fetch_offsets(g, std::nullopt, false); }
  int64_t committed(const std::string& g, const std::string& topic, int32_t p) {
    auto r = coord_->fetch_offsets(g, std::vector<TopicPartitionKey>{{topic, p}}, false);
    EXPECT_EQ(r.error, ErrorCode::kNone);
    return r.offsets.at(0).offset;
  }
  std::pair<ErrorCode, PartitionErrors> delete_offsets(const std::string& g, std::vector<TopicPartitionKey> tps) {
    testing::Answer<std::pair<ErrorCode, PartitionErrors>> a;
    auto cb = a.callback();
    coord_->delete_offsets(g, tps, [cb](ErrorCode e, PartitionErrors pe) { cb({e, std::move(pe)}); });
    EXPECT_TRUE(a.ready());
    return a.ready() ? a.get() : std::pair<ErrorCode, PartitionErrors>{};
  }
  std::vector<std::pair<std::string, ErrorCode>> delete_groups(std::vector<std::string> ids) {
    testing::Answer<std::vector<std::pair<std::string, ErrorCode>>> a;
    coord_->delete_groups(ids, a.callback());
    EXPECT_TRUE(a.ready());
    return a.ready() ? a.get() : std::vector<std::pair<std::string, ErrorCode>>{};
  }
};

TEST_F(Offsets, SimpleCommitCreatesEmptyGroupAndFetchSeesIt) {
  auto errs = commit("simple", "", -1, {entry("t", 0, 10), entry("t", 1, 20, std::nullopt)});
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_EQ(errs[0].second, ErrorCode::kNone);
  EXPECT_EQ(errs[1].second, ErrorCode::kNone);
  EXPECT_EQ(state_of("simple"), "Empty");
  auto all = fetch_all("simple");
  ASSERT_EQ(all.offsets.size(), 2u);
  EXPECT_EQ(all.offsets[0].offset, 10);
  EXPECT_EQ(all.offsets[0].metadata, "m");
  EXPECT_EQ(all.offsets[1].offset, 20);
  EXPECT_EQ(all.offsets[1].metadata, "");
  // Some: a committed and an unknown partition.
  auto some = coord_->fetch_offsets("simple", std::vector<TopicPartitionKey>{{"t", 1}, {"x", 0}}, false);
  ASSERT_EQ(some.offsets.size(), 2u);
  EXPECT_EQ(some.offsets[0].offset, 20);
  EXPECT_EQ(some.offsets[1].offset, -1);
  EXPECT_EQ(some.offsets[1].error, ErrorCode::kNone);
  // Unknown group: -1 for each requested partition, nothing for "all".
  EXPECT_EQ(committed("none", "t", 0), -1);
  EXPECT_TRUE(fetch_all("none").offsets.empty());
  // Later commits win.
  commit("simple", "", -1, {entry("t", 0, 11)});
  EXPECT_EQ(committed("simple", "t", 0), 11);
}

TEST_F(Offsets, MemberCommitChecks) {
  auto [a, gen] = stable_single("g");
  EXPECT_EQ(commit("g", a, gen, {entry("t", 0, 5)}).at(0).second, ErrorCode::kNone);
  EXPECT_EQ(committed("g", "t", 0), 5);
  EXPECT_EQ(commit("g", a, gen + 1, {entry("t", 0, 6)}).at(0).second, ErrorCode::kIllegalGeneration);
  EXPECT_EQ(commit("g", "ghost", gen, {entry("t", 0, 6)}).at(0).second, ErrorCode::kUnknownMemberId);
  // A simple commit to an active group is refused.
  EXPECT_EQ(commit("g", "", -1, {entry("t", 0, 6)}).at(0).second, ErrorCode::kUnknownMemberId);
  // A generation-based commit for an unknown group.
  EXPECT_EQ(commit("nogroup", "m", 3, {entry("t", 0, 6)}).at(0).second, ErrorCode::kIllegalGeneration);
  EXPECT_EQ(committed("g", "t", 0), 5);
}

TEST_F(Offsets, CommitDuringPreparingRebalanceIsAllowed) {
  auto [a, gen] = stable_single("g");
  join("g", "");
  ASSERT_EQ(state_of("g"), "PreparingRebalance");
  EXPECT_EQ(commit("g", a, gen, {entry("t", 0, 8)}).at(0).second, ErrorCode::kNone);
  EXPECT_EQ(committed("g", "t", 0), 8);
}

TEST_F(Offsets, MetadataTooLargeIsPerPartition) {
  GroupCoordinatorOptions o = options();
  o.offset_metadata_max_bytes = 4;
  start(o);
  auto errs = commit("g", "", -1, {entry("t", 0, 1, std::string("12345")), entry("t", 1, 2, std::string("1234"))});
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_EQ(errs[0].second, ErrorCode::kOffsetMetadataTooLarge);
  EXPECT_EQ(errs[1].second, ErrorCode::kNone);
  EXPECT_EQ(committed("g", "t", 0), -1);
  EXPECT_EQ(committed("g", "t", 1), 2);
  auto only_bad = commit("g", "", -1, {entry("t", 0, 1, std::string("123456"))});
  EXPECT_EQ(only_bad.at(0).second, ErrorCode::kOffsetMetadataTooLarge);
}

TEST_F(Offsets, CommitBecomesVisibleOnlyWhenDurable) {
  log_.hold(true);
  OffsetCommitParams p;
  p.group_id = "g";
  p.offsets = {entry("t", 0, 42)};
  testing::Answer<PartitionErrors> a;
  coord_->commit_offsets(p, a.callback());
  EXPECT_FALSE(a.ready());
  EXPECT_EQ(committed("g", "t", 0), -1);
  auto unstable = coord_->fetch_offsets("g", std::vector<TopicPartitionKey>{{"t", 0}}, true);
  EXPECT_EQ(unstable.offsets.at(0).error, ErrorCode::kUnstableOffsetCommit);
  log_.hold(false);
  log_.release();
  ASSERT_TRUE(a.ready());
  EXPECT_EQ(a.get().at(0).second, ErrorCode::kNone);
  EXPECT_EQ(committed("g", "t", 0), 42);
}

TEST_F(Offsets, FailedAppendMapsErrorsAndKeepsOldOffset) {
  commit("g", "", -1, {entry("t", 0, 1)});
  log_.fail_next_append(Status::error("disk", static_cast<int16_t>(ErrorCode::kRecordListTooLarge)));
  EXPECT_EQ(commit("g", "", -1, {entry("t", 0, 2)}).at(0).second, ErrorCode::kInvalidCommitOffsetSize);
  log_.fail_next_append(Status::error("gone", static_cast<int16_t>(ErrorCode::kNotLeaderOrFollower)));
  EXPECT_EQ(commit("g", "", -1, {entry("t", 0, 3)}).at(0).second, ErrorCode::kNotCoordinator);
  EXPECT_EQ(committed("g", "t", 0), 1);
}

TEST_F(Offsets, DeleteGroups) {
  auto [a, gen] = stable_single("active");
  commit("empty", "", -1, {entry("t", 0, 1)});
  auto r = delete_groups({"active", "empty", "missing"});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].second, ErrorCode::kNonEmptyGroup);
  EXPECT_EQ(r[1].second, ErrorCode::kNone);
  EXPECT_EQ(r[2].second, ErrorCode::kGroupIdNotFound);
  EXPECT_EQ(state_of("empty"), "Dead");
  EXPECT_EQ(committed("empty", "t", 0), -1);
  // Tombstones for the offset and the group reached the log.
  int tombstones = 0;
  for (const auto& rec : log_.records(coord_->partition_for("empty"))) {
    if (!rec.value) ++tombstones;
  }
  EXPECT_EQ(tombstones, 2);
  EXPECT_EQ(delete_groups({"empty"}).at(0).second, ErrorCode::kGroupIdNotFound);
}

TEST_F(Offsets, DeleteOffsetsOfSubscribedTopicIsRefused) {
  auto [a, gen] = stable_single("g", "t");
  commit("g", a, gen, {entry("t", 0, 1), entry("other", 0, 2)});
  auto [e, pe] = delete_offsets("g", {{"t", 0}, {"other", 0}});
  EXPECT_EQ(e, ErrorCode::kNone);
  ASSERT_EQ(pe.size(), 2u);
  for (const auto& [tp, err] : pe) {
    EXPECT_EQ(err, tp.topic == "t" ? ErrorCode::kGroupSubscribedToTopic : ErrorCode::kNone) << tp.topic;
  }
  EXPECT_EQ(committed("g", "t", 0), 1);
  EXPECT_EQ(committed("g", "other", 0), -1);
  EXPECT_EQ(delete_offsets("missing", {{"t", 0}}).first, ErrorCode::kGroupIdNotFound);
}

TEST_F(Offsets, DeleteOffsetsOfNonConsumerActiveGroupIsNonEmpty) {
  auto j = join("c", "", {{"p", bytes_of("x")}}, std::nullopt, 10000, 30000, false, "connect");
  ASSERT_EQ(j.get().error, ErrorCode::kNone);
  EXPECT_EQ(delete_offsets("c", {{"t", 0}}).first, ErrorCode::kNonEmptyGroup);
}

TEST_F(Offsets, DeleteLastOffsetOfEmptyGroupRemovesGroup) {
  commit("g", "", -1, {entry("t", 0, 1)});
  auto [e, pe] = delete_offsets("g", {{"t", 0}});
  EXPECT_EQ(e, ErrorCode::kNone);
  EXPECT_EQ(pe.at(0).second, ErrorCode::kNone);
  EXPECT_EQ(state_of("g"), "Dead");
}

TEST_F(Offsets, RetentionExpiresOffsetsOfEmptyGroupsWithTombstones) {
  commit("simple", "", -1, {entry("t", 0, 1)});
  auto [a, gen] = stable_single("active", "t");
  commit("active", a, gen, {entry("t", 0, 5), entry("unsubscribed", 0, 6)});
  EXPECT_EQ(coord_->expire_offsets_now(), 0);
  const int64_t day = 24 * 3600 * 1000;
  clock_->advance(day);  // wall time moves with the manual clock
  coord_->heartbeat("active", a, std::nullopt, gen);
  EXPECT_EQ(coord_->expire_offsets_now(), 2);  // simple t-0, active unsubscribed-0
  EXPECT_EQ(committed("simple", "t", 0), -1);
  EXPECT_EQ(state_of("simple"), "Dead");
  EXPECT_EQ(committed("active", "t", 0), 5);
  EXPECT_EQ(committed("active", "unsubscribed", 0), -1);
  bool tombstone = false;
  for (const auto& rec : log_.records(coord_->partition_for("simple"))) {
    auto k = decode_key(ByteSpan(rec.key));
    if (!rec.value && k.is_ok() && std::holds_alternative<OffsetRecordKey>(*k)) tombstone = true;
  }
  EXPECT_TRUE(tombstone);
}

TEST_F(Offsets, EmptyGroupOffsetsAgeFromWhenTheGroupBecameEmpty) {
  GroupCoordinatorOptions o = options();
  o.offsets_retention_ms = 60000;
  start(o);
  auto [a, gen] = stable_single("g", "t");
  commit("g", a, gen, {entry("t", 0, 5)});
  // Alive for 50 s (heartbeats every 5 s), then leave.
  for (int i = 0; i < 10; ++i) {
    advance(5000);
    ASSERT_EQ(coord_->heartbeat("g", a, std::nullopt, gen), ErrorCode::kNone);
  }
  coord_->leave_group("g", {{a, std::nullopt}});
  ASSERT_EQ(state_of("g"), "Empty");
  advance(30000);
  EXPECT_EQ(coord_->expire_offsets_now(), 0);  // committed 80 s ago, but empty for only 30 s
  EXPECT_EQ(committed("g", "t", 0), 5);
  advance(30000);
  EXPECT_EQ(coord_->expire_offsets_now(), 1);
  EXPECT_EQ(state_of("g"), "Dead");
}

TEST_F(Offsets, ListAndDescribeGroups) {
  auto [a, gen] = stable_single("g1");
  commit("g2", "", -1, {entry("t", 0, 1)});
  auto [err, all] = coord_->list_groups({});
  EXPECT_EQ(err, ErrorCode::kNone);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].group_id, "g1");
  EXPECT_EQ(all[0].state, "Stable");
  EXPECT_EQ(all[0].protocol_type, "consumer");
  EXPECT_EQ(all[1].state, "Empty");
  auto [err2, stable] = coord_->list_groups({"stable"});
  ASSERT_EQ(stable.size(), 1u);
  EXPECT_EQ(stable[0].group_id, "g1");

  auto d = coord_->describe_groups({"g1", "zzz"});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].error, ErrorCode::kNone);
  EXPECT_EQ(d[0].protocol_name, "range");
  ASSERT_EQ(d[0].members.size(), 1u);
  EXPECT_EQ(d[0].members[0].member_id, a);
  EXPECT_EQ(d[0].members[0].assignment, bytes_of("A"));
  EXPECT_EQ(d[0].members[0].metadata, testing::subscription({"t"}));
  EXPECT_EQ(d[0].members[0].client_host, "/127.0.0.1");
  EXPECT_EQ(d[1].state, "Dead");
  EXPECT_EQ(d[1].error, ErrorCode::kNone);
}

TEST_F(Offsets, CommitWithOwnRetentionExpiresThen) {
  OffsetCommitParams p;
  p.group_id = "g";
  p.retention_time_ms = 5000;
  p.offsets = {entry("t", 0, 1)};
  testing::Answer<PartitionErrors> a;
  coord_->commit_offsets(p, a.callback());
  ASSERT_TRUE(a.ready());
  advance(4999);
  EXPECT_EQ(coord_->expire_offsets_now(), 0);
  advance(1);
  EXPECT_EQ(coord_->expire_offsets_now(), 1);
  EXPECT_EQ(committed("g", "t", 0), -1);
}

}  // namespace
}  // namespace spool::coordinator
