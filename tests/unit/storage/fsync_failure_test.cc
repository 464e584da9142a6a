// A failed fsync (issue 16, PostgreSQL's "fsyncgate"): it is never retried
// as if it could have worked. The log dir goes offline (KAFKA_STORAGE_ERROR
// for every later append, flush and durable wait), nothing written after the
// failure is acknowledged, and after a power cut everything acknowledged
// before it is still there. FaultFs models Linux here: the pages of a
// failed sync are lost for good even if a later fsync reports success.
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <future>

#include "storage/fault_fs.h"
#include "storage/file_util.h"
#include "storage/index_file.h"
#include "storage/log_manager.h"
#include "fault_fs_support.h"

namespace spool::storage {
namespace {

using namespace testing;

LogManager::Options options(const std::string& root) { return fault_test_options(root, small_config()); }

Status wait_durable(LogManager& m, const std::shared_ptr<Log>& log) {
  std::promise<Status> done;
  m.flusher().await_durable(log, log->log_end_offset() - 1, [&done](Status s) { done.set_value(s); });
  return done.get_future().get();
}

TEST(FsyncFailure, TakesTheDirOfflineAndNothingAfterItIsAcknowledged) {
  spdlog::set_level(spdlog::level::warn);
  FaultFsRoot disk;
  const std::string& root = disk.root;
  FaultFs& ffs = *disk.ffs;
  int64_t acked = 0;
  {
    auto m = LogManager::open(options(root));
    ASSERT_TRUE(m) << m.status().message();
    std::string failed_dir, why;
    (*m)->set_dir_failure_listener([&](const std::string& r, const std::string& w) {
      failed_dir = r;
      why = w;
    });
    auto log = (*m)->create("t", 0, small_config());
    ASSERT_TRUE(log);
    for (int i = 0; i < 5; ++i) append(**log, 3);
    ASSERT_TRUE(wait_durable(**m, *log));
    acked = (*log)->log_end_offset();

    for (int i = 0; i < 3; ++i) append(**log, 3);
    ffs.inject({FaultFs::Op::kSync, EIO, ".log", 0, 1});  // one failure, then syncs work again
    Status s = wait_durable(**m, *log);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.kafka_code(), kStorageError) << s.message();
    EXPECT_EQ(ffs.faults_injected(), 1u);
    EXPECT_TRUE((*m)->dir_offline(root));
    EXPECT_EQ(failed_dir, root);
    EXPECT_NE(why.find("fsync"), std::string::npos) << why;

    // The disk would now take a sync again; the log must not pretend the
    // failed data made it.
    Status again = wait_durable(**m, *log);
    EXPECT_FALSE(again);
    EXPECT_EQ(again.kafka_code(), kStorageError);
    EXPECT_FALSE((*log)->flush());
    Bytes b = make_batch(2);
    auto r = (*log)->append(std::span<uint8_t>(b), 2, 0);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().kafka_code(), kStorageError);
    EXPECT_LT((*log)->flushed_offset(), (*log)->log_end_offset());  // never marked durable
    (*m)->shutdown();
  }
  // After a power cut the acknowledged records are all there.
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    ffs.power_cut(seed);
    auto m = LogManager::open(options(root));
    ASSERT_TRUE(m) << m.status().message();
    auto log = (*m)->get("t", 0);
    ASSERT_TRUE(log);
    EXPECT_GE(log->log_end_offset(), acked) << "seed " << seed;
    auto rd = log->read(0, 1 << 20, log->log_end_offset(), true);
    ASSERT_TRUE(rd);
    auto bs = batches_in(rd->records);
    ASSERT_FALSE(bs.empty());
    EXPECT_EQ(bs.front().first, 0);
    for (size_t i = 1; i < bs.size(); ++i) EXPECT_EQ(bs[i].first, bs[i - 1].second + 1) << "seed " << seed;
    (*m)->halt();
  }
}

TEST(FsyncFailure, AFullDiskRefusesTheWriteAndKeepsTheDirOnline) {
  // ENOSPC on a write (nothing of it half-done) is not an I/O failure: the
  // append is refused with KAFKA_STORAGE_ERROR and the next one, once space
  // is back, works (Spool's documented difference from Kafka, which takes
  // the dir offline).
  spdlog::set_level(spdlog::level::warn);
  FaultFsRoot disk;
  const std::string& root = disk.root;
  FaultFs& ffs = *disk.ffs;
  auto m = LogManager::open(options(root));
  ASSERT_TRUE(m) << m.status().message();
  auto log = (*m)->create("t", 0, small_config());
  ASSERT_TRUE(log);
  append(**log, 2);
  ffs.inject({FaultFs::Op::kWrite, ENOSPC, ".log", 0, 1, /*short_first=*/true});
  Bytes b = make_batch(4, 1000, 200);
  auto r = (*log)->append(std::span<uint8_t>(b), 4, 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().kafka_code(), kStorageError);
  EXPECT_FALSE((*m)->dir_offline(root));
  EXPECT_EQ((*log)->log_end_offset(), 2);
  append(**log, 3);  // the short half was cut off again: no torn batch
  ASSERT_TRUE(wait_durable(**m, *log));
  auto rd = (*log)->read(0, 1 << 20, (*log)->log_end_offset(), true);
  ASSERT_TRUE(rd);
  EXPECT_EQ(batches_in(rd->records), (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {2, 4}}));
  (*m)->shutdown();
}

// A full disk under a sparse, preallocated index: a store into a page with
// no block behind it would raise SIGBUS. The index allocates its blocks
// first; without space the entry is refused (the disk-full error) and the
// next one, once space is back, lands.
TEST(FullDisk, IndexEntriesWithoutBlocksAreRefusedNotStored) {
  FaultFsRoot disk;
  auto f = IndexFile::open(disk.root + "/00000000000000000000.index", 8, 1 << 20, /*preallocate=*/true);
  ASSERT_TRUE(f) << f.status().message();
  disk.ffs->inject({FaultFs::Op::kWrite, ENOSPC, ".index", 0, 1});
  const uint8_t entry[8] = {0, 0, 0, 1, 0, 0, 0, 2};
  Status s = (*f)->append(entry);
  ASSERT_FALSE(s);
  EXPECT_TRUE(is_disk_full(s)) << s.message();
  EXPECT_EQ((*f)->entries(), 0u);
  ASSERT_TRUE((*f)->append(entry));
  EXPECT_EQ((*f)->entries(), 1u);
  EXPECT_EQ(std::memcmp((*f)->entry(0), entry, 8), 0);
}

// The log keeps taking writes while its index cannot grow (the index only
// gets sparser), and every record reads back.
TEST(FullDisk, AppendsGoOnWhileTheIndexCannotGrow) {
  spdlog::set_level(spdlog::level::warn);
  FaultFsRoot disk;
  auto m = LogManager::open(options(disk.root));
  ASSERT_TRUE(m) << m.status().message();
  auto log = (*m)->create("t", 0, small_config());
  ASSERT_TRUE(log);
  disk.ffs->inject({FaultFs::Op::kWrite, ENOSPC, ".index", 0, -1});
  for (int i = 0; i < 40; ++i) append(**log, 2);
  EXPECT_GT(disk.ffs->faults_injected(), 0u);
  EXPECT_EQ((*log)->log_end_offset(), 80);
  for (int64_t o = 0; o < 80; o += 9) {
    auto rd = (*log)->read(o, 1, 80, true);
    ASSERT_TRUE(rd && !rd->records.empty()) << "offset " << o;
  }
  (*m)->shutdown();
}

}  // namespace
}  // namespace spool::storage
