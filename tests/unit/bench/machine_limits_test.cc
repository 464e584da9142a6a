#include "bench/machine_limits.h"
#include "common/temp_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <csignal>

#include <filesystem>

namespace spool::bench {
namespace {

namespace fs = std::filesystem;

class TempDir : public test_support::TempDir {
 public:
  TempDir() : test_support::TempDir("spool-limits") {}
};

bool is_empty_dir(const std::string& d) { return fs::is_empty(d); }

TEST(BenchMachineLimits, LoopbackMovesBytes) {
  auto v = loopback_MBps(0.2);
  ASSERT_TRUE(v.is_ok()) << v.status().message();
  EXPECT_GT(*v, 0);
}

TEST(BenchMachineLimits, LoopbackRejectsBadDuration) {
  EXPECT_FALSE(loopback_MBps(0).is_ok());
  EXPECT_FALSE(loopback_MBps(-1).is_ok());
  EXPECT_FALSE(loopback_MBps(1e9).is_ok());
}

TEST(BenchMachineLimits, DiskWriteBothModesLeaveNoFile) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  for (bool sync_each : {false, true}) {
    // 3.5 chunks: the partial last chunk is written too.
    auto v = disk_write_MBps(tmp.path(), 3 * int64_t{kMachineChunkBytes} + kMachineChunkBytes / 2, sync_each);
    ASSERT_TRUE(v.is_ok()) << v.status().message();
    EXPECT_GT(*v, 0);
    EXPECT_TRUE(is_empty_dir(tmp.path())) << "temp file left behind";
  }
}

TEST(BenchMachineLimits, DiskWriteBadArgumentsAreErrors) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  EXPECT_FALSE(disk_write_MBps(tmp.path() + "/does/not/exist", 1 << 20, false).is_ok());
  EXPECT_FALSE(disk_write_MBps("", 1 << 20, false).is_ok());
  EXPECT_FALSE(disk_write_MBps(tmp.path(), 0, false).is_ok());
  EXPECT_FALSE(disk_write_MBps(tmp.path(), -5, true).is_ok());
  EXPECT_TRUE(is_empty_dir(tmp.path()));
}

TEST(BenchMachineLimits, WriteFailureMidwayIsAnErrorAndLeavesNoFile) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  // A file-size limit makes write() fail with EFBIG after two chunks
  // (SIGXFSZ ignored so the process survives); restored afterwards.
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = 2 * kMachineChunkBytes;
  auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  auto v = disk_write_MBps(tmp.path(), 4 * int64_t{kMachineChunkBytes}, false);
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(v.is_ok());
  EXPECT_TRUE(is_empty_dir(tmp.path())) << "temp file left behind";
}

}  // namespace
}  // namespace spool::bench
