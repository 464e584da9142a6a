// What the replica path needs from storage: Kafka's endOffsetFor answer rules
// on a snapshot, full truncation, the leader's epoch stamp, and truncate_to
// at the log end dropping an epoch stamp that has no batch.
#include <gtest/gtest.h>

#include "record/batch_header.h"
#include "storage/file_util.h"
#include "storage/leader_epoch_cache.h"
#include "storage/log.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using namespace testing;
using EO = std::pair<int32_t, int64_t>;

TEST(EndOffsetForEpoch, KafkaAnswerRules) {
  const std::vector<EpochEntry> e{{1, 10}, {3, 40}, {6, 70}};
  EXPECT_EQ(end_offset_for_epoch(e, 6, 95), EO(6, 95));   // the latest: the log end
  EXPECT_EQ(end_offset_for_epoch(e, 3, 95), EO(3, 70));   // known: start of the next
  EXPECT_EQ(end_offset_for_epoch(e, 4, 95), EO(3, 70));   // unknown: the floor epoch, start of the next
  EXPECT_EQ(end_offset_for_epoch(e, 5, 95), EO(3, 70));
  EXPECT_EQ(end_offset_for_epoch(e, 1, 95), EO(1, 40));
  EXPECT_EQ(end_offset_for_epoch(e, 0, 95), EO(0, 10));   // below every epoch: requested, first start
  EXPECT_EQ(end_offset_for_epoch(e, 7, 95), EO(-1, -1));  // above every epoch
  EXPECT_EQ(end_offset_for_epoch(e, -1, 95), EO(-1, -1));
  EXPECT_EQ(end_offset_for_epoch({}, 3, 95), EO(-1, -1));
  // The cache answers the same through its lock.
  TempDir d;
  LeaderEpochCache c(d.sub("leader-epoch-checkpoint"));
  for (const auto& x : e) c.assign(x.epoch, x.start_offset);
  for (int32_t q = -1; q <= 7; ++q) EXPECT_EQ(c.end_offset_for(q, 95), end_offset_for_epoch(e, q, 95)) << q;
  c.clear();
  EXPECT_TRUE(c.entries().empty());
  EXPECT_FALSE(c.latest_epoch().has_value());
}

TEST(LogReplicaSupport, BeginLeaderEpochStampsTheLogEnd) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  append(*log, 3, 1000, 10, 2);
  EXPECT_EQ(log->begin_leader_epoch(5), 3);
  EXPECT_EQ(log->epoch_entries(), (std::vector<EpochEntry>{{2, 0}, {5, 3}}));
  EXPECT_EQ(log->end_offset_for_epoch(2), EO(2, 3));
  EXPECT_EQ(log->end_offset_for_epoch(4), EO(2, 3));
  EXPECT_EQ(log->end_offset_for_epoch(5), EO(5, 3));
  // An older or equal epoch is ignored.
  EXPECT_EQ(log->begin_leader_epoch(5), 3);
  EXPECT_EQ(log->begin_leader_epoch(4), 3);
  EXPECT_EQ(log->epoch_entries().size(), 2u);
  // The epoch's first batch starts where the stamp says.
  EXPECT_EQ(append(*log, 2, 1000, 10, 5).first_offset, 3);
  EXPECT_EQ(log->epoch_entries(), (std::vector<EpochEntry>{{2, 0}, {5, 3}}));
  // Persisted on flush: a reopened log has it.
  ASSERT_TRUE(log->flush());
  ASSERT_TRUE(log->close());
  log.reset();
  auto again = open_log(d.sub("t-0"), small_config(), true, 5);
  EXPECT_EQ(again->epoch_entries(), (std::vector<EpochEntry>{{2, 0}, {5, 3}}));
}

TEST(LogReplicaSupport, TruncateAtTheLogEndDropsAnUnwrittenStamp) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  append(*log, 4, 1000, 10, 1);
  log->begin_leader_epoch(3);  // led epoch 3, wrote nothing
  ASSERT_TRUE(log->truncate_to(4));
  EXPECT_EQ(log->log_end_offset(), 4);
  EXPECT_EQ(log->epoch_entries(), (std::vector<EpochEntry>{{1, 0}}));
  // Beyond the end: nothing cut either, batches kept.
  ASSERT_TRUE(log->truncate_to(100));
  EXPECT_EQ(log->log_end_offset(), 4);
  EXPECT_EQ(log->epoch_entries(), (std::vector<EpochEntry>{{1, 0}}));
}

TEST(LogReplicaSupport, TruncateFullyAndStartAt) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  for (int i = 0; i < 20; ++i) append(*log, 2, 1000, 100, i / 10);
  ASSERT_GT(log->segment_count(), 2u);
  ASSERT_TRUE(log->flush());
  ASSERT_TRUE(log->truncate_fully_and_start_at(500));
  EXPECT_EQ(log->log_start_offset(), 500);
  EXPECT_EQ(log->log_end_offset(), 500);
  EXPECT_EQ(log->flushed_offset(), 500);
  EXPECT_EQ(log->segment_count(), 1u);
  EXPECT_EQ(log->segment_base_offsets(), std::vector<int64_t>{500});
  EXPECT_TRUE(log->epoch_entries().empty());
  EXPECT_FALSE(path_exists(seg_path(log->dir(), 0, ".log")));
  EXPECT_TRUE(path_exists(seg_path(log->dir(), 500, ".log")));
  auto r = log->read(500, 1 << 20, INT64_MAX, false);
  ASSERT_TRUE(r.is_ok());
  EXPECT_TRUE(r->records.empty());
  EXPECT_FALSE(log->read(499, 1 << 20, INT64_MAX, false).is_ok());
  // Follower batches continue at the new start.
  Bytes b = make_batch(3);
  record::set_base_offset(b.data(), 500);
  record::set_partition_leader_epoch(b.data(), 4);
  ASSERT_TRUE(log->append_as_follower(b));
  EXPECT_EQ(log->log_end_offset(), 503);
  EXPECT_EQ(log->epoch_entries(), (std::vector<EpochEntry>{{4, 500}}));
  // A negative start is refused and changes nothing.
  auto bad = log->truncate_fully_and_start_at(-1);
  EXPECT_FALSE(bad.is_ok());
  EXPECT_EQ(log->log_end_offset(), 503);
  // The state survives a restart.
  ASSERT_TRUE(log->flush());
  ASSERT_TRUE(log->close());
  log.reset();
  auto again = open_log(d.sub("t-0"), small_config(), true, 503, 500);
  EXPECT_EQ(again->log_start_offset(), 500);
  EXPECT_EQ(again->log_end_offset(), 503);
  EXPECT_EQ(again->epoch_entries(), (std::vector<EpochEntry>{{4, 500}}));
}

TEST(LogReplicaSupport, EmptyFollowerTakesABatchStraddlingItsStart) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  ASSERT_TRUE(log->truncate_fully_and_start_at(40));
  Bytes b = make_batch(2);  // [39, 40]: the leader's log start 40 is inside it
  record::set_base_offset(b.data(), 39);
  record::set_partition_leader_epoch(b.data(), 2);
  auto r = log->append_as_follower(b);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->first_offset, 39);
  EXPECT_EQ(log->log_start_offset(), 39);
  EXPECT_EQ(log->log_end_offset(), 41);
  EXPECT_EQ(log->epoch_entries(), (std::vector<EpochEntry>{{2, 39}}));
  ASSERT_TRUE(log->advance_log_start_offset(40));
  EXPECT_EQ(log->epoch_entries(), (std::vector<EpochEntry>{{2, 40}}));
  // Only an empty log does that: a batch below a non-empty log's end is refused.
  Bytes c = make_batch(2);
  record::set_base_offset(c.data(), 40);
  EXPECT_FALSE(log->append_as_follower(c).is_ok());
  EXPECT_EQ(log->log_end_offset(), 41);
  // An empty log whose end is not inside the batch refuses it too.
  auto other = open_log(d.sub("t-1"), small_config());
  ASSERT_TRUE(other->truncate_fully_and_start_at(50));
  Bytes e = make_batch(2);  // [39, 40], entirely below 50
  record::set_base_offset(e.data(), 39);
  EXPECT_FALSE(other->append_as_follower(e).is_ok());
  EXPECT_EQ(other->log_start_offset(), 50);
}

TEST(LogReplicaSupport, ClosedLogRefusesFullTruncation) {
  TempDir d;
  auto log = open_log(d.sub("t-0"), small_config());
  append(*log, 1);
  ASSERT_TRUE(log->close());
  EXPECT_FALSE(log->truncate_fully_and_start_at(10).is_ok());
}

}  // namespace
}  // namespace spool::storage
