#include <gtest/gtest.h>

#include "storage/checkpoint.h"
#include "storage/file_util.h"
#include "storage/leader_epoch_cache.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using testing::TempDir;

TEST(Checkpoint, OffsetRoundTripInKafkaFormat) {
  TempDir d;
  OffsetMap m{{{"orders", 0}, 42}, {{"orders", 3}, 7}, {{"a.b_c-d", 1}, 0}};
  std::string path = d.sub("recovery-point-offset-checkpoint");
  ASSERT_TRUE(write_offset_checkpoint(path, m));
  auto text = read_small_file(path);
  ASSERT_TRUE(text.is_ok());
  EXPECT_EQ(*text, "0\n3\na.b_c-d 1 0\norders 0 42\norders 3 7\n");
  auto back = read_offset_checkpoint(path);
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(*back, m);
  EXPECT_FALSE(path_exists(path + ".tmp"));
}

TEST(Checkpoint, MissingIsEmptyGarbageIsError) {
  TempDir d;
  auto r = read_offset_checkpoint(d.sub("nope"));
  ASSERT_TRUE(r.is_ok());
  EXPECT_TRUE(r->empty());
  for (const char* bad : {"", "1\n0\n", "0\n2\nt 0 1\n", "0\nx\n", "0\n1\nt 0\n", "0\n1\nt -1 5\n",
                          "0\n1\nt 0 -5\n", "0\n1\nt 0 5 9\n", "0\n1\nbad/topic 0 1\n", "\x01\x02\xff"}) {
    EXPECT_FALSE(parse_offset_checkpoint(bad).is_ok()) << bad;
  }
  EXPECT_TRUE(parse_offset_checkpoint("0\n0\n").is_ok());
}

TEST(Checkpoint, LeaderEpochFormatAndCache) {
  TempDir d;
  EXPECT_EQ(format_epoch_checkpoint({{0, 0}, {3, 100}}), "0\n2\n0 0\n3 100\n");
  EXPECT_FALSE(parse_epoch_checkpoint("0\n2\n3 100\n0 0\n").is_ok());  // out of order
  LeaderEpochCache c(d.sub("leader-epoch-checkpoint"));
  c.assign(0, 0);
  c.assign(0, 10);  // same epoch: ignored
  c.assign(2, 50);
  c.assign(5, 80);
  EXPECT_EQ(c.end_offset_for(5, 99), std::make_pair(5, int64_t{99}));
  EXPECT_EQ(c.end_offset_for(2, 99), std::make_pair(2, int64_t{80}));
  EXPECT_EQ(c.end_offset_for(3, 99), std::make_pair(2, int64_t{80}));  // floor epoch
  EXPECT_EQ(c.end_offset_for(9, 99), std::make_pair(-1, int64_t{-1}));
  ASSERT_TRUE(c.persist());
  LeaderEpochCache c2(d.sub("leader-epoch-checkpoint"));
  c2.load();
  EXPECT_EQ(c2.entries(), c.entries());
  c2.truncate_from_end(80);
  EXPECT_EQ(c2.latest_epoch(), 2);
  c2.truncate_from_start(60);
  ASSERT_EQ(c2.entries().size(), 1u);
  EXPECT_EQ(c2.entries()[0], (EpochEntry{2, 60}));
  // Garbage on disk: loads empty, no crash.
  ASSERT_TRUE(write_file_atomic(d.sub("leader-epoch-checkpoint"), "garbage\n"));
  LeaderEpochCache c3(d.sub("leader-epoch-checkpoint"));
  c3.load();
  EXPECT_TRUE(c3.entries().empty());
}

TEST(Checkpoint, MetaPropertiesAndDirNames) {
  TempDir d;
  ASSERT_TRUE(write_meta_properties(d.sub("meta.properties"), {7, "abc"}));
  auto m = read_meta_properties(d.sub("meta.properties"));
  ASSERT_TRUE(m.is_ok());
  ASSERT_TRUE(m->has_value());
  EXPECT_EQ((*m)->broker_id, 7);
  EXPECT_EQ((*m)->cluster_id, "abc");
  auto tp = parse_partition_dir("my-topic-12");
  ASSERT_TRUE(tp);
  EXPECT_EQ(tp->topic, "my-topic");
  EXPECT_EQ(tp->partition, 12);
  EXPECT_FALSE(parse_partition_dir("nodash"));
  EXPECT_FALSE(parse_partition_dir("topic-"));
  EXPECT_FALSE(parse_partition_dir("topic-x1"));
  EXPECT_FALSE(parse_partition_dir("-3"));
  EXPECT_FALSE(parse_partition_dir("bad topic-1"));
}

}  // namespace
}  // namespace spool::storage
