// Test-only power cuts of a live broker (issue 16's system-level power-cut
// tests). Off unless the environment says SPOOL_TEST_FAULT_FS=1; never set it
// in production: every sync becomes a copy of the file.
//
// When on, the broker's log dir (exactly one) runs on a FaultFs
// (storage/fault_fs.h), installed before anything opens a file there, and
// SIGUSR2 cuts the power: the file system freezes (every later change fails
// with EIO), the state a disk could hold after losing power at that instant
// is written to `<log dir>.powercut` (random choices from
// SPOOL_TEST_POWER_CUT_SEED, else from the clock; logged either way), and the
// process kills itself with SIGKILL. The test harness moves that tree over
// the log dir before it restarts the broker.
//
// Threading: made and used on the broker's main thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/fault_fs.h"
#include "util/status.h"

namespace spool::broker {

class TestPowerCut {
 public:
  static bool wanted();  // SPOOL_TEST_FAULT_FS=1
  // nullptr when not wanted; an error for more than one log dir.
  static Result<std::unique_ptr<TestPowerCut>> from_env(const std::vector<std::string>& log_dirs);
  ~TestPowerCut();

  [[noreturn]] void cut();

 private:
  TestPowerCut(const std::string& dir, uint64_t seed);
  std::string dir_;
  uint64_t seed_;
  storage::FaultFs fs_;
};

}  // namespace spool::broker
