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

TEST(Checkpoint, UuidText) {
  // Kafka's Uuid.toString of 0x0123...cdef (url-safe base64, no padding).
  Uuid id{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
  EXPECT_EQ(uuid_to_text(id), "ASNFZ4mrze_-3LqYdlQyEA");
  EXPECT_EQ(uuid_from_text("ASNFZ4mrze_-3LqYdlQyEA"), id);
  Uuid ones;
  ones.fill(0xff);
  EXPECT_EQ(uuid_to_text(ones), "_____________________w");
  EXPECT_EQ(uuid_from_text("_____________________w"), ones);
  for (const char* bad : {"", "ASNFZ4mrze_-3LqYdlQyE", "ASNFZ4mrze_-3LqYdlQyEAA", "ASNFZ4mrze_+3LqYdlQyEA",
                          "ASNFZ4mrze_-3LqYdlQyEB" /* non-zero spare bits */})
    EXPECT_FALSE(uuid_from_text(bad)) << bad;
  EXPECT_EQ(random_id().size(), 22u);
  EXPECT_TRUE(uuid_from_text(random_id()));
}

TEST(Checkpoint, PartitionMetadata) {
  TempDir d;
  Uuid id{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  auto none = read_partition_metadata(d.path());
  ASSERT_TRUE(none.is_ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(write_partition_metadata(d.path(), id));
  auto text = read_small_file(d.sub("partition.metadata"));
  ASSERT_TRUE(text.is_ok());
  EXPECT_EQ(*text, "version: 0\ntopic_id: " + uuid_to_text(id) + "\n");  // Kafka's PartitionMetadataFile
  auto back = read_partition_metadata(d.path());
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(back->value(), id);
  EXPECT_EQ(parse_partition_metadata("version: 0\r\ntopic_id: " + uuid_to_text(id) + "\r\n").value(), id);
  for (const char* bad : {"", "garbage", "version: 1\ntopic_id: AQIDBAUGBwgJCgsMDQ4PEA\n", "version: 0\n",
                          "version: 0\ntopic_id: nope\n", "version:0\ntopic_id: AQIDBAUGBwgJCgsMDQ4PEA\n",
                          "version: 0\ntopic_id: AQIDBAUGBwgJCgsMDQ4PEA\nmore\n"})
    EXPECT_FALSE(parse_partition_metadata(bad).is_ok()) << bad;
  ASSERT_TRUE(write_file_atomic(d.sub("partition.metadata"), "version: 0\ntopic_id: x\n"));
  EXPECT_FALSE(read_partition_metadata(d.path()).is_ok());
}

}  // namespace
}  // namespace spool::storage
