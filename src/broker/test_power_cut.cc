#include "broker/test_power_cut.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

namespace spool::broker {

bool TestPowerCut::wanted() {
  const char* v = std::getenv("SPOOL_TEST_FAULT_FS");
  return v != nullptr && std::string(v) == "1";
}

Result<std::unique_ptr<TestPowerCut>> TestPowerCut::from_env(const std::vector<std::string>& log_dirs) {
  if (!wanted()) return std::unique_ptr<TestPowerCut>();
  if (log_dirs.size() != 1) return Status::error("SPOOL_TEST_FAULT_FS=1 needs exactly one log dir");
  const char* s = std::getenv("SPOOL_TEST_POWER_CUT_SEED");
  uint64_t seed = s != nullptr ? std::strtoull(s, nullptr, 10)
                               : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  std::error_code ec;
  std::filesystem::create_directories(log_dirs[0], ec);
  return std::unique_ptr<TestPowerCut>(new TestPowerCut(log_dirs[0], seed));
}

TestPowerCut::TestPowerCut(const std::string& dir, uint64_t seed) : dir_(dir), seed_(seed), fs_(dir) {
  storage::install_fs(&fs_);
  spdlog::warn("TEST MODE: {} runs on a fault-injecting file system; SIGUSR2 cuts the power (seed {})", dir_, seed_);
}

TestPowerCut::~TestPowerCut() { storage::install_fs(nullptr); }

void TestPowerCut::cut() {
  const std::string target = std::filesystem::path(dir_).lexically_normal().string() + ".powercut";
  std::error_code ec;
  std::filesystem::remove_all(target, ec);
  // The process dies inside: no thread changes a file in between (they
  // wait on the FaultFs), so nothing races the state taken, and no failure
  // path (a log dir going offline, halting) gets to run.
  fs_.power_cut_into(target, seed_, [&](const storage::FaultFs::CutReport& rep) {
    spdlog::warn("power cut (seed {}): {}; the disk's state is in {}", seed_, rep.to_string(), target);
    spdlog::default_logger()->flush();
    ::kill(::getpid(), SIGKILL);
    for (;;) ::pause();
  });
  for (;;) ::pause();
}

}  // namespace spool::broker
