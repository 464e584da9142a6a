#include <gtest/gtest.h>
#include <future>

#include "storage/file_util.h"
#include "storage/log_manager.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using namespace testing;

LogManager::Options opts(const TempDir& d, int dirs = 1) {
  LogManager::Options o;
  for (int i = 0; i < dirs; ++i) o.log_dirs.push_back(d.sub("data" + std::to_string(i)));
  o.defaults = small_config();
  o.broker_id = 3;
  o.recovery_threads = 2;
  return o;
}

TEST(LogManager, CreateGetRemoveAndLayout) {
  TempDir d;
  auto m = LogManager::open(opts(d, 2));
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  auto a = (*m)->create("orders", 0, small_config());
  auto b = (*m)->create("orders", 1, small_config());
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_EQ(*(*m)->create("orders", 0, small_config()), *a);  // idempotent
  EXPECT_NE((*a)->dir().substr(0, d.path().size() + 6), (*b)->dir().substr(0, d.path().size() + 6));  // spread
  EXPECT_TRUE(path_exists(seg_path((*a)->dir(), 0, ".log")));
  EXPECT_EQ((*m)->get("orders", 1), *b);
  EXPECT_EQ((*m)->get("orders", 9), nullptr);
  EXPECT_FALSE((*m)->create("bad name", 0, small_config()).is_ok());
  EXPECT_FALSE((*m)->create("x", -1, small_config()).is_ok());
  EXPECT_TRUE(path_exists(d.sub("data0/meta.properties")));
  EXPECT_FALSE((*m)->cluster_id().empty());
  append(**a, 2);
  std::string dir = (*a)->dir();
  ASSERT_TRUE((*m)->remove("orders", 0));
  EXPECT_FALSE(path_exists(dir));
  EXPECT_EQ((*m)->get("orders", 0), nullptr);
  EXPECT_FALSE((*m)->remove("orders", 0).is_ok());
  EXPECT_EQ((*m)->logs().size(), 1u);
}

// StopReplica with delete: any set of partitions, across topics and log
// dirs, removed with one checkpoint rewrite; one status per partition, ok
// for one that has no log.
TEST(LogManager, RemovePartitionsAcrossTopicsAndDirs) {
  TempDir d;
  auto m = LogManager::open(opts(d, 2));
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  std::vector<std::string> dirs;
  for (const auto& [t, p] : std::vector<std::pair<std::string, int32_t>>{{"a", 0}, {"a", 1}, {"b", 0}, {"b", 1}}) {
    auto log = (*m)->create(t, p, small_config());
    ASSERT_TRUE(log.is_ok());
    append(**log, 2);
    dirs.push_back((*log)->dir());
  }
  ASSERT_TRUE((*m)->write_checkpoints());
  std::vector<Status> each;
  ASSERT_TRUE((*m)->remove_partitions({{"a", 0}, {"b", 1}, {"c", 7}}, &each));
  ASSERT_EQ(each.size(), 3u);
  EXPECT_TRUE(each[0] && each[1] && each[2]);
  EXPECT_FALSE(path_exists(dirs[0]));
  EXPECT_TRUE(path_exists(dirs[1]));
  EXPECT_TRUE(path_exists(dirs[2]));
  EXPECT_FALSE(path_exists(dirs[3]));
  EXPECT_EQ((*m)->logs().size(), 2u);
  OffsetMap named;
  for (int i = 0; i < 2; ++i) {
    auto rp = read_offset_checkpoint(d.sub("data" + std::to_string(i) + "/recovery-point-offset-checkpoint"));
    ASSERT_TRUE(rp.is_ok());
    named.insert(rp->begin(), rp->end());
  }
  EXPECT_EQ(named.count(TopicPartition{"a", 0}) + named.count(TopicPartition{"b", 1}), 0u);
  EXPECT_EQ(named.count(TopicPartition{"a", 1}) + named.count(TopicPartition{"b", 0}), 2u);
}

TEST(LogManager, CleanShutdownAndReopen) {
  TempDir d;
  auto o = opts(d);
  std::string cluster;
  {
    auto m = LogManager::open(o);
    ASSERT_TRUE(m.is_ok());
    cluster = (*m)->cluster_id();
    auto log = (*m)->create("t", 0, small_config());
    for (int i = 0; i < 30; ++i) append(**log, 2, 1000, 100);
    (*m)->shutdown();
    EXPECT_TRUE(path_exists(d.sub("data0/.kafka_cleanshutdown")));
    auto rp = read_offset_checkpoint(d.sub("data0/recovery-point-offset-checkpoint"));
    ASSERT_TRUE(rp.is_ok());
    EXPECT_EQ(rp->at(TopicPartition{"t", 0}), 60);
  }
  // Junk that must be skipped or cleaned.
  ASSERT_TRUE(make_dirs(d.sub("data0/not_a_partition")));
  ASSERT_TRUE(make_dirs(d.sub("data0/t-1.abc-delete")));
  auto m = LogManager::open(o);
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  EXPECT_FALSE(path_exists(d.sub("data0/.kafka_cleanshutdown")));  // removed after start
  EXPECT_FALSE(path_exists(d.sub("data0/t-1.abc-delete")));
  EXPECT_EQ((*m)->cluster_id(), cluster);
  ASSERT_EQ((*m)->logs().size(), 1u);
  auto log = (*m)->get("t", 0);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->log_end_offset(), 60);
  EXPECT_EQ(log->flushed_offset(), 60);
}

TEST(LogManager, GarbageCheckpointsMeanFullRecovery) {
  TempDir d;
  auto o = opts(d);
  {
    auto m = LogManager::open(o);
    auto log = (*m)->create("t", 0, small_config());
    for (int i = 0; i < 10; ++i) append(**log, 2);
    (*m)->shutdown();
  }
  // Torn tail + garbage checkpoints + no clean marker.
  std::filesystem::remove(d.sub("data0/.kafka_cleanshutdown"));
  ASSERT_TRUE(write_file_atomic(d.sub("data0/recovery-point-offset-checkpoint"), "\x01garbage"));
  ASSERT_TRUE(write_file_atomic(d.sub("data0/log-start-offset-checkpoint"), "0\n5\n"));
  append_bytes_to(seg_path(d.sub("data0/t-0"), 0, ".log"), Bytes(37, 7));
  auto m = LogManager::open(o);
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  auto log = (*m)->get("t", 0);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->log_end_offset(), 20);
  EXPECT_EQ(append(*log, 1).first_offset, 20);
}

TEST(LogManager, CrashThenRecoverFromRecoveryPoint) {
  TempDir d;
  auto o = opts(d);
  {
    auto m = LogManager::open(o);
    ASSERT_TRUE(m.is_ok());
    auto log = (*m)->create("t", 0, small_config());
    for (int i = 0; i < 20; ++i) append(**log, 2, 1000, 100);
    ASSERT_TRUE((*log)->flush());
    ASSERT_TRUE((*m)->write_checkpoints());
    for (int i = 0; i < 5; ++i) append(**log, 2, 1000, 100);  // unflushed tail
    (*m)->halt();
  }
  auto rp = read_offset_checkpoint(d.sub("data0/recovery-point-offset-checkpoint"));
  ASSERT_TRUE(rp.is_ok());
  EXPECT_EQ(rp->at(TopicPartition{"t", 0}), 40);
  Bytes half = make_batch(2, 1000, 100);
  half.resize(70);
  auto bases = std::vector<int64_t>();
  for (auto& e : std::filesystem::directory_iterator(d.sub("data0/t-0")))
    if (auto b = parse_segment_file_name(e.path().filename().string(), ".log")) bases.push_back(*b);
  std::sort(bases.begin(), bases.end());
  append_bytes_to(seg_path(d.sub("data0/t-0"), bases.back(), ".log"), half);
  auto m = LogManager::open(o);
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  auto log = (*m)->get("t", 0);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->log_end_offset(), 50);
  EXPECT_EQ(append(*log, 1).first_offset, 50);
}

TEST(LogManager, RefusesAnotherBrokersDir) {
  TempDir d;
  auto o = opts(d);
  { auto m = LogManager::open(o); ASSERT_TRUE(m.is_ok()); }
  o.broker_id = 4;
  auto m = LogManager::open(o);
  EXPECT_FALSE(m.is_ok());
}

TEST(LogManager, AwaitDurableThroughManager) {
  TempDir d;
  auto m = LogManager::open(opts(d));
  auto log = (*m)->create("t", 0, small_config());
  auto a = append(**log, 2);
  std::promise<Status> p;
  (*m)->flusher().await_durable(*log, a.last_offset, [&](Status s) { p.set_value(s); });
  auto fut = p.get_future();
  ASSERT_EQ(fut.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_TRUE(fut.get().is_ok());
  EXPECT_EQ((*log)->flushed_offset(), 2);
}

}  // namespace
}  // namespace spool::storage
