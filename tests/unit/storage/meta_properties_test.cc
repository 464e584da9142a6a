// meta.properties at start: Kafka's refusal of another broker's or
// cluster's log dir (the error names the dir and both values), fresh dirs
// written, today's single-node cluster id kept, and LogManager::open
// running the same check.
#include <gtest/gtest.h>

#include "storage/checkpoint.h"
#include "storage/file_util.h"
#include "storage/log_manager.h"
#include "storage/meta_properties.h"
#include "test_util.h"

namespace spool::storage {
namespace {

using testing::TempDir;

void expect_mentions(const Status& s, std::initializer_list<std::string> words) {
  for (const auto& w : words) EXPECT_NE(s.message().find(w), std::string::npos) << "'" << w << "' not in: " << s.message();
}

TEST(MetaProperties, FreshDirsGetOneWithTheGivenIds) {
  TempDir d;
  std::vector<std::string> dirs{d.sub("a"), d.sub("b")};
  auto id = ensure_meta_properties(dirs, "Cluster-Id-From-ZooKeep", 3);
  ASSERT_TRUE(id.is_ok()) << id.status().message();
  EXPECT_EQ(*id, "Cluster-Id-From-ZooKeep");
  for (const auto& dir : dirs) {
    auto text = read_small_file(dir + "/meta.properties");
    ASSERT_TRUE(text.is_ok());
    EXPECT_EQ(*text, "#\n#Written by Spool\nversion=0\nbroker.id=3\ncluster.id=Cluster-Id-From-ZooKeep\n");
  }
  // Same ids again: accepted, nothing to change.
  EXPECT_EQ(*ensure_meta_properties(dirs, "Cluster-Id-From-ZooKeep", 3), "Cluster-Id-From-ZooKeep");
  EXPECT_EQ(*stored_cluster_id(dirs), "Cluster-Id-From-ZooKeep");
}

TEST(MetaProperties, AnotherClustersDirIsRefusedNamingBothIdsAndTheDir) {
  TempDir d;
  ASSERT_TRUE(write_meta_properties(d.sub("meta.properties"), {1, "OldClusterOldClusterOl"}));
  auto r = ensure_meta_properties({d.path()}, "NewClusterNewClusterNe", 1);
  ASSERT_FALSE(r.is_ok());
  expect_mentions(r.status(), {"OldClusterOldClusterOl", "NewClusterNewClusterNe", d.sub("meta.properties")});
  EXPECT_EQ(r.status().kafka_code(), kStorageError);
  // Nothing was rewritten.
  EXPECT_EQ(read_meta_properties(d.sub("meta.properties"))->value().cluster_id, "OldClusterOldClusterOl");
  EXPECT_FALSE(check_meta_properties({d.path()}, "NewClusterNewClusterNe", 1).is_ok());
}

TEST(MetaProperties, AnotherBrokersDirIsRefusedNamingBothIdsAndTheDir) {
  TempDir d;
  ASSERT_TRUE(write_meta_properties(d.sub("meta.properties"), {7, "C"}));
  auto r = ensure_meta_properties({d.path()}, "C", 2);
  ASSERT_FALSE(r.is_ok());
  expect_mentions(r.status(), {"broker.id 7", "broker.id 2", d.sub("meta.properties")});
  // Also when the cluster id is left to the disk.
  EXPECT_FALSE(check_meta_properties({d.path()}, "", 2).is_ok());
}

TEST(MetaProperties, EmptyClusterIdKeepsTheDisksOrMakesOne) {
  TempDir d;
  std::vector<std::string> dirs{d.sub("a"), d.sub("b")};
  auto made = ensure_meta_properties(dirs, "", 0);
  ASSERT_TRUE(made.is_ok());
  EXPECT_EQ(made->size(), 22u);  // Kafka's Uuid text form, as single-node Spool always wrote
  EXPECT_TRUE(uuid_from_text(*made).has_value());
  EXPECT_EQ(*ensure_meta_properties(dirs, "", 0), *made);  // kept at the next start
  EXPECT_EQ(*stored_cluster_id(dirs), *made);
  // A new dir joins with the existing id.
  dirs.push_back(d.sub("c"));
  EXPECT_EQ(*ensure_meta_properties(dirs, "", 0), *made);
  EXPECT_EQ(read_meta_properties(d.sub("c/meta.properties"))->value().cluster_id, *made);
}

TEST(MetaProperties, DirsOfTwoClustersAreRefused) {
  TempDir d;
  ASSERT_TRUE(make_dirs(d.sub("a")));
  ASSERT_TRUE(make_dirs(d.sub("b")));
  ASSERT_TRUE(write_meta_properties(d.sub("a/meta.properties"), {0, "AAAA"}));
  ASSERT_TRUE(write_meta_properties(d.sub("b/meta.properties"), {0, "BBBB"}));
  auto r = stored_cluster_id({d.sub("a"), d.sub("b")});
  ASSERT_FALSE(r.is_ok());
  expect_mentions(r.status(), {"AAAA", "BBBB", d.sub("a/meta.properties"), d.sub("b/meta.properties")});
  EXPECT_FALSE(ensure_meta_properties({d.sub("a"), d.sub("b")}, "", 0).is_ok());
}

TEST(MetaProperties, AFileWithoutClusterIdGainsItAndGarbageIsRewritten) {
  TempDir d;
  ASSERT_TRUE(make_dirs(d.sub("a")));
  ASSERT_TRUE(make_dirs(d.sub("b")));
  ASSERT_TRUE(write_file_atomic(d.sub("a/meta.properties"), "version=0\nbroker.id=4\n"));
  ASSERT_TRUE(write_file_atomic(d.sub("b/meta.properties"), "not a properties file"));
  EXPECT_EQ(*stored_cluster_id({d.sub("a"), d.sub("b")}), "");
  auto id = ensure_meta_properties({d.sub("a"), d.sub("b")}, "Z", 4);
  ASSERT_TRUE(id.is_ok()) << id.status().message();
  EXPECT_EQ(read_meta_properties(d.sub("a/meta.properties"))->value().cluster_id, "Z");
  EXPECT_EQ(read_meta_properties(d.sub("b/meta.properties"))->value().broker_id, 4);
}

LogManager::Options options(const TempDir& d, int32_t broker, const std::string& cluster) {
  LogManager::Options o;
  o.log_dirs = {d.sub("data0")};
  o.broker_id = broker;
  o.cluster_id = cluster;
  o.cleaner_enable = false;
  return o;
}

TEST(MetaProperties, LogManagerOpenRunsTheSameCheck) {
  TempDir d;
  {
    auto m = LogManager::open(options(d, 1, "ClusterOne"));
    ASSERT_TRUE(m.is_ok()) << m.status().message();
    EXPECT_EQ((*m)->cluster_id(), "ClusterOne");
    (*m)->shutdown();
  }
  auto other_cluster = LogManager::open(options(d, 1, "ClusterTwo"));
  ASSERT_FALSE(other_cluster.is_ok());
  expect_mentions(other_cluster.status(), {"ClusterOne", "ClusterTwo", d.sub("data0")});
  auto other_broker = LogManager::open(options(d, 2, "ClusterOne"));
  ASSERT_FALSE(other_broker.is_ok());
  expect_mentions(other_broker.status(), {"broker.id 1", "broker.id 2", d.sub("data0")});
  auto keep = LogManager::open(options(d, 1, ""));  // single node: the disk's id
  ASSERT_TRUE(keep.is_ok()) << keep.status().message();
  EXPECT_EQ((*keep)->cluster_id(), "ClusterOne");
}

}  // namespace
}  // namespace spool::storage
