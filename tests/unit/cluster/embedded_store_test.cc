// EmbeddedStore: persistence across reopen (persistent nodes and stats,
// no ephemerals, zxids keep growing), crash safety (a torn temp file is
// ignored, a corrupt or truncated main file is refused naming the file),
// save failures, and the file codec's validation.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/embedded_format.h"
#include "cluster/embedded_store.h"
#include "common/temp_dir.h"
#include "storage/file_util.h"
#include "util/crc32c.h"

namespace spool::cluster {
namespace {

using test_support::TempDir;

std::string slurp(const std::string& path) {
  auto r = storage::read_small_file(path);
  EXPECT_TRUE(r.is_ok()) << path;
  return r ? *r : "";
}

void spill(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::unique_ptr<EmbeddedStore> open_ok(const std::string& dir) {
  auto s = EmbeddedStore::open(dir);
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return s ? std::move(s.value()) : nullptr;
}

TEST(EmbeddedStore, PersistentNodesSurviveReopenEphemeralsDoNot) {
  TempDir d("spool-embedded");
  std::string dir = d.sub("logs");
  int64_t eph_czxid = 0;
  Stat before;
  {
    auto s = open_ok(dir);  // creates the dir
    ASSERT_NE(s, nullptr);
    EXPECT_FALSE(storage::path_exists(s->file_path()));  // nothing written before a write
    EXPECT_EQ(s->file_path(), dir + "/spool-metadata-store");
    ASSERT_TRUE(ensure_path(*s, "/brokers/ids"));
    ASSERT_TRUE(s->create("/cluster", ""));
    ASSERT_TRUE(s->create("/cluster/id", "abcdefghijklmnopqrstuv"));
    ASSERT_TRUE(s->set("/cluster/id", "the-id", 0));
    auto e = s->create("/brokers/ids/0", "{}", CreateMode::kEphemeral);
    ASSERT_TRUE(e);
    eph_czxid = s->get("/brokers/ids/0")->stat.czxid;
    ASSERT_TRUE(s->create("/seq", ""));
    ASSERT_TRUE(s->create("/seq/n-", "", CreateMode::kPersistentSequential));
    before = s->get("/cluster/id")->stat;
    EXPECT_TRUE(s->reconnect());
    EXPECT_NE(s->session_id(), 0);
  }
  auto s = open_ok(dir);
  ASSERT_NE(s, nullptr);
  auto g = s->get("/cluster/id");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->data, "the-id");
  EXPECT_EQ(g->stat.version, 1);
  EXPECT_EQ(g->stat.czxid, before.czxid);
  EXPECT_EQ(g->stat.mzxid, before.mzxid);
  EXPECT_EQ(s->exists("/brokers/ids/0").code(), StoreCode::kNoNode);
  EXPECT_EQ(s->exists("/brokers/ids")->num_children, 0);
  // The broker epoch of the next registration is above every earlier one.
  ASSERT_TRUE(s->create("/brokers/ids/0", "{}", CreateMode::kEphemeral));
  EXPECT_GT(s->get("/brokers/ids/0")->stat.czxid, eph_czxid);
  // Sequential numbering continues from the saved cversion.
  auto n = s->create("/seq/n-", "", CreateMode::kPersistentSequential);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, "/seq/n-0000000001");
  EXPECT_EQ(*s->children("/"), (std::vector<std::string>{"brokers", "cluster", "seq"}));
}

TEST(EmbeddedStore, MultiAndRemoveAreSavedFailedWritesAreNot) {
  TempDir d("spool-embedded");
  {
    auto s = open_ok(d.path());
    ASSERT_TRUE(s->create("/epoch", "0"));
    ASSERT_TRUE(s->create("/gone", ""));
    ASSERT_TRUE(s->multi({Op::check("/epoch", 0), Op::create("/a", "1"), Op::set_data("/epoch", "1")}));
    std::string file = slurp(s->file_path());
    EXPECT_FALSE(s->multi({Op::create("/b", ""), Op::check("/epoch", 9)}));
    EXPECT_EQ(slurp(s->file_path()), file);  // a failed multi writes nothing
    ASSERT_TRUE(s->remove("/gone"));
  }
  auto s = open_ok(d.path());
  EXPECT_EQ(s->get("/a")->data, "1");
  EXPECT_EQ(s->get("/epoch")->stat.version, 1);
  EXPECT_EQ(s->exists("/b").code(), StoreCode::kNoNode);
  EXPECT_EQ(s->exists("/gone").code(), StoreCode::kNoNode);
}

TEST(EmbeddedStore, WatchesFireOnTheDeliveryThread) {
  TempDir d("spool-embedded");
  auto s = open_ok(d.path());
  std::mutex mu;
  std::vector<std::string> seen;
  EXPECT_EQ(s->exists("/x", [&](WatchEvent ev, const std::string& p) {
              std::lock_guard<std::mutex> g(mu);
              seen.push_back(std::to_string(static_cast<int>(ev)) + p);
            }).code(),
            StoreCode::kNoNode);
  ASSERT_TRUE(s->create("/x", ""));
  ASSERT_TRUE(s->drain_watches(std::chrono::seconds(5)));
  std::lock_guard<std::mutex> g(mu);
  EXPECT_EQ(seen, (std::vector<std::string>{"0/x"}));
}

TEST(EmbeddedStoreCrash, ATornTempFileIsIgnored) {
  TempDir d("spool-embedded");
  {
    auto s = open_ok(d.path());
    ASSERT_TRUE(s->create("/kept", "v"));
  }
  std::string file = d.sub(embedded::kFileName);
  spill(file + ".tmp", "SPMS\x00\x01 half a write");
  auto s = open_ok(d.path());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->get("/kept")->data, "v");
  EXPECT_FALSE(storage::path_exists(file + ".tmp"));
}

TEST(EmbeddedStoreCrash, EveryTruncationAndEveryFlippedByteIsRefusedNamingTheFile) {
  TempDir d("spool-embedded");
  {
    auto s = open_ok(d.path());
    ASSERT_TRUE(ensure_path(*s, "/brokers/topics/t"));
    ASSERT_TRUE(s->set("/brokers/topics/t", R"({"version":2,"partitions":{"0":[0]}})"));
  }
  std::string file = d.sub(embedded::kFileName);
  const std::string good = slurp(file);
  ASSERT_GT(good.size(), embedded::kHeaderBytes + embedded::kTrailerBytes);
  for (size_t len = 0; len < good.size(); ++len) {
    spill(file, good.substr(0, len));
    auto r = EmbeddedStore::open(d.path());
    ASSERT_FALSE(r) << "truncated to " << len;
    EXPECT_EQ(r.code(), StoreCode::kOther);
    EXPECT_NE(r.error().message.find(file), std::string::npos) << r.error().message;
  }
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x20);
    spill(file, bad);
    auto r = EmbeddedStore::open(d.path());
    ASSERT_FALSE(r) << "byte " << i;
    EXPECT_NE(r.error().message.find(file), std::string::npos);
  }
  spill(file, good);
  EXPECT_TRUE(EmbeddedStore::open(d.path()));
}

TEST(EmbeddedStoreCrash, AFailedSaveIsReportedAndTheNextSaveCatchesUp) {
  TempDir d("spool-embedded");
  auto s = open_ok(d.path());
  ASSERT_TRUE(s->create("/a", ""));
  std::string tmp = s->file_path() + ".tmp";
  ASSERT_EQ(::mkdir(tmp.c_str(), 0755), 0);  // the temp file cannot be created
  auto r = s->create("/b", "");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.code(), StoreCode::kOther);
  EXPECT_NE(r.error().message.find("not saved"), std::string::npos) << r.error().message;
  EXPECT_TRUE(s->exists("/b"));  // applied in memory
  ASSERT_EQ(::rmdir(tmp.c_str()), 0);
  ASSERT_TRUE(s->create("/c", ""));
  s.reset();
  auto again = open_ok(d.path());
  EXPECT_TRUE(again->exists("/b"));
  EXPECT_TRUE(again->exists("/c"));
}

// Replaces the trailer with a valid checksum of the (edited) content.
std::string reseal(std::string b) {
  b.resize(b.size() - embedded::kTrailerBytes);
  uint32_t crc = crc32c(reinterpret_cast<const uint8_t*>(b.data()), b.size());
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<char>(crc >> s));
  return b;
}

TEST(EmbeddedFormat, RoundTripAndLayout) {
  embedded::Snapshot snap;
  snap.last_zxid = 42;
  MemoryTree::SavedNode root{"/", "", {}};
  MemoryTree::SavedNode a{"/a", std::string("x\0y", 3), {}};
  a.stat.czxid = 3;
  a.stat.mzxid = 7;
  a.stat.version = 2;
  a.stat.cversion = 5;
  snap.nodes = {root, a};
  std::string bytes = embedded::encode(snap);
  EXPECT_EQ(bytes.size(), embedded::kHeaderBytes + 2 * embedded::kNodeFixedBytes + 1 + 2 + 3 + embedded::kTrailerBytes);
  EXPECT_EQ(bytes.substr(0, 4), "SPMS");
  EXPECT_EQ(bytes[5], 1);   // version, big-endian
  EXPECT_EQ(bytes[15], 42);  // last zxid, big-endian
  EXPECT_EQ(bytes[19], 2);  // node count
  auto back = embedded::decode(bytes);
  ASSERT_TRUE(back) << back.status().message();
  EXPECT_EQ(back->last_zxid, 42);
  ASSERT_EQ(back->nodes.size(), 2u);
  EXPECT_EQ(back->nodes[1].path, "/a");
  EXPECT_EQ(back->nodes[1].data, std::string("x\0y", 3));
  EXPECT_EQ(back->nodes[1].stat.czxid, 3);
  EXPECT_EQ(back->nodes[1].stat.mzxid, 7);
  EXPECT_EQ(back->nodes[1].stat.version, 2);
  EXPECT_EQ(back->nodes[1].stat.cversion, 5);
}

TEST(EmbeddedFormat, StructurallyBadContentWithAValidChecksumIsRefused) {
  embedded::Snapshot snap;
  snap.nodes = {MemoryTree::SavedNode{"/", "", {}}, MemoryTree::SavedNode{"/a", "d", {}}};
  const std::string good = embedded::encode(snap);
  ASSERT_TRUE(embedded::decode(good));
  auto expect_bad = [&](std::string bytes, const std::string& why) {
    auto r = embedded::decode(reseal(std::move(bytes)));
    ASSERT_FALSE(r) << why;
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().message();
  };
  std::string b = good;
  b[0] = 'X';
  expect_bad(b, "bad magic");
  b = good;
  b[5] = 9;
  expect_bad(b, "unsupported version 9");
  b = good;
  b[7] = 1;
  expect_bad(b, "unknown flags");
  b = good;
  b[8] = static_cast<char>(0x80);
  expect_bad(b, "negative last zxid");
  b = good;
  b[16] = 0x7f;
  expect_bad(b, "exceeds the file");
  b = good;
  b.insert(b.size() - embedded::kTrailerBytes, "zz");
  expect_bad(b, "unexpected bytes");
  b = good;
  b[20] = 0x7f;  // first node's path length
  expect_bad(b, "bad path length");
  // mzxid below czxid.
  snap.nodes[1].stat.czxid = 5;
  snap.nodes[1].stat.mzxid = 4;
  auto r = embedded::decode(embedded::encode(snap));
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("impossible stat"), std::string::npos);
}

TEST(EmbeddedStoreCrash, AnOrphanNodeIsRefusedAtLoad) {
  TempDir d("spool-embedded");
  embedded::Snapshot snap;
  snap.nodes = {MemoryTree::SavedNode{"/", "", {}}, MemoryTree::SavedNode{"/a/b", "", {}}};
  std::string file = d.sub(embedded::kFileName);
  spill(file, embedded::encode(snap));
  auto r = EmbeddedStore::open(d.path());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find(file), std::string::npos);
  EXPECT_NE(r.error().message.find("/a/b"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace spool::cluster

