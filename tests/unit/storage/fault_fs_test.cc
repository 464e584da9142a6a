// FaultFs (storage/fault_fs.h): what a power cut keeps and loses, and the
// faults it injects. The power-cut tests rely on exactly these rules.
#include "storage/fault_fs.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "storage/file_util.h"
#include "fault_fs_support.h"

namespace spool::storage {
namespace {


std::string slurp(const std::string& path) {
  auto r = read_small_file(path);
  return r ? *r : std::string("<missing>");
}

Status write_at(int fd, const std::string& s, int64_t pos) {
  return pwrite_all(fd, reinterpret_cast<const uint8_t*>(s.data()), s.size(), pos);
}

struct Fixture : testing::FaultFsRoot {
  int create(const std::string& name) {
    return fs().open((root + "/" + name).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  }
};

TEST(FaultFs, SyncedBytesSurviveAndUnsyncedAppendsAreDroppedOrTornAtAPageBoundary) {
  const std::string synced(5000, 's'), unsynced(3 * 4096, 'u');
  int kept_some = 0, dropped_all = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Fixture f;
    ASSERT_TRUE(sync_dir(f.root));
    int fd = f.create("a.log");
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(sync_dir(f.root));
    ASSERT_TRUE(write_at(fd, synced, 0));
    ASSERT_TRUE(data_sync(fd));
    ASSERT_TRUE(write_at(fd, unsynced, 5000));
    fs().close(fd);
    auto rep = f.ffs->power_cut(seed);
    const std::string after = slurp(f.root + "/a.log");
    ASSERT_GE(after.size(), synced.size()) << "seed " << seed;
    EXPECT_EQ(after.substr(0, 4096), synced.substr(0, 4096)) << "seed " << seed;
    // The rest: a prefix of what was written, ending at a page boundary or at the end.
    const std::string whole = synced + unsynced;
    EXPECT_TRUE(after.size() == synced.size() || after.size() % 4096 == 0 || after.size() == whole.size())
        << "seed " << seed << " size " << after.size();
    for (size_t i = 4096; i < after.size(); ++i)
      ASSERT_TRUE(after[i] == whole[i] || (i < synced.size() ? after[i] == synced[i] : false) || after[i] == '\0')
          << "seed " << seed << " byte " << i;
    (after.size() > synced.size() ? kept_some : dropped_all) += 1;
    EXPECT_EQ(rep.files_kept, 1u);
  }
  // Both outcomes happen over 20 seeds (each has probability 1/5 or more).
  EXPECT_GT(kept_some, 0);
  EXPECT_GT(dropped_all, 0);
}

TEST(FaultFs, ACreateIsUndoneUnlessItsDirectoryWasSynced) {
  Fixture f;
  int a = f.create("synced-name");
  ASSERT_TRUE(write_at(a, "A", 0));
  ASSERT_TRUE(data_sync(a));
  ASSERT_TRUE(sync_dir(f.root));
  int b = f.create("unsynced-name");
  ASSERT_TRUE(write_at(b, "B", 0));
  ASSERT_TRUE(data_sync(b));  // content synced, name not
  fs().close(a);
  fs().close(b);
  ASSERT_TRUE(make_dirs(f.root + "/sub/deeper"));
  int c = f.create("sub/deeper/x");
  ASSERT_TRUE(data_sync(c));
  ASSERT_TRUE(sync_dir(f.root + "/sub/deeper"));  // "sub" itself was never synced into root
  fs().close(c);
  auto rep = f.ffs->power_cut(7);
  EXPECT_EQ(slurp(f.root + "/synced-name"), "A");
  EXPECT_FALSE(path_exists(f.root + "/unsynced-name"));
  EXPECT_FALSE(path_exists(f.root + "/sub"));
  EXPECT_EQ(rep.names_lost, 2u);
}

TEST(FaultFs, AReplaceByRenameIsUndoneWithoutTheDirectorySyncAndKeptWithIt) {
  Fixture f;
  ASSERT_TRUE(write_file_atomic(f.root + "/cp", "old"));
  // write_file_atomic's rename without its final directory sync:
  ASSERT_TRUE(write_file_replace(f.root + "/cp", ByteSpan(reinterpret_cast<const uint8_t*>("new"), 3)));
  EXPECT_EQ(slurp(f.root + "/cp"), "new");
  f.ffs->power_cut(1);
  EXPECT_EQ(slurp(f.root + "/cp"), "old");
  EXPECT_FALSE(path_exists(f.root + "/cp.tmp"));
  ASSERT_TRUE(write_file_atomic(f.root + "/cp", "newer"));
  f.ffs->power_cut(2);
  EXPECT_EQ(slurp(f.root + "/cp"), "newer");
}

TEST(FaultFs, AnUnlinkIsUndoneWithoutTheDirectorySync) {
  Fixture f;
  ASSERT_TRUE(write_file_atomic(f.root + "/keep", "k"));
  ASSERT_TRUE(remove_file(f.root + "/keep"));
  f.ffs->power_cut(3);
  EXPECT_EQ(slurp(f.root + "/keep"), "k");
  ASSERT_TRUE(remove_file(f.root + "/keep"));
  ASSERT_TRUE(sync_dir(f.root));
  f.ffs->power_cut(4);
  EXPECT_FALSE(path_exists(f.root + "/keep"));
}

TEST(FaultFs, AFailedFsyncLosesItsDataEvenIfALaterFsyncSucceeds) {
  Fixture f;
  int fd = f.create("a.log");
  ASSERT_TRUE(sync_dir(f.root));
  ASSERT_TRUE(write_at(fd, std::string(8192, 'x'), 0));  // pages 0 and 1
  f.ffs->inject({FaultFs::Op::kSync, EIO, "a.log"});
  Status s = data_sync(fd);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.sys_errno(), EIO);
  EXPECT_EQ(s.kafka_code(), kStorageError);
  ASSERT_TRUE(write_at(fd, std::string(4096, 'y'), 8192));  // page 2
  ASSERT_TRUE(write_at(fd, "z", 4096));                      // page 1 dirty again
  ASSERT_TRUE(data_sync(fd));  // "succeeds": page 0 was never written
  fs().close(fd);
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    f.ffs->power_cut(seed);  // everything is synced: no choice is left to the seed
    const std::string after = slurp(f.root + "/a.log");
    ASSERT_EQ(after.size(), 3 * 4096u);
    EXPECT_EQ(after.substr(0, 4096), std::string(4096, '\0'));
    EXPECT_EQ(after.substr(4096, 4096), "z" + std::string(4095, 'x'));
    EXPECT_EQ(after.substr(8192), std::string(4096, 'y'));
  }
}

TEST(FaultFs, DroppedSyncsReportSuccessAndKeepNothing) {
  Fixture f;
  f.ffs->set_drop_syncs(true);
  ASSERT_TRUE(write_file_atomic(f.root + "/cp", "data"));
  EXPECT_EQ(f.ffs->syncs(), 0u);
  f.ffs->power_cut(6);
  EXPECT_FALSE(path_exists(f.root + "/cp"));
}

TEST(FaultFs, InjectedWriteErrorsShortWritesAndFreeze) {
  Fixture f;
  int fd = f.create("a.log");
  f.ffs->inject({FaultFs::Op::kWrite, ENOSPC, "a.log", /*skip=*/1, /*times=*/1, /*short_first=*/true});
  ASSERT_TRUE(write_at(fd, "first", 0));  // skipped by the rule
  Status s = write_at(fd, std::string(1000, 'z'), 5);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.sys_errno(), ENOSPC);
  EXPECT_TRUE(is_disk_full(s));
  auto size = file_size(fd);
  ASSERT_TRUE(size);
  EXPECT_EQ(*size, 5 + 500);  // the short half landed
  ASSERT_TRUE(write_at(fd, "again", 0));  // the rule is used up
  EXPECT_EQ(f.ffs->faults_injected(), 1u);
  f.ffs->freeze();
  s = write_at(fd, "dead", 0);
  EXPECT_EQ(s.sys_errno(), EIO);
  EXPECT_EQ(data_sync(fd).sys_errno(), EIO);
  EXPECT_LT(fs().open((f.root + "/new").c_str(), O_RDWR | O_CREAT, 0644), 0);
  fs().close(fd);
  f.ffs->thaw();
  EXPECT_TRUE(write_file_atomic(f.root + "/cp", "alive"));
}

TEST(FaultFs, FilesOutsideTheRootAreNotTracked) {
  Fixture f;
  const std::string outside = f.d.sub("elsewhere");
  ASSERT_TRUE(write_file_replace(outside, ByteSpan(reinterpret_cast<const uint8_t*>("o"), 1)));
  f.ffs->freeze();
  EXPECT_TRUE(write_file_replace(outside, ByteSpan(reinterpret_cast<const uint8_t*>("p"), 1)));
  f.ffs->power_cut(8);
  EXPECT_EQ(slurp(outside), "p");
}

}  // namespace
}  // namespace spool::storage
