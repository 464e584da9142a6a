// Storage tests under injected faults: a FaultFs over `<temp dir>/<name>`
// (created empty), installed as fs() for the object's life, and log-manager
// options on that root with no background cleaner (a deterministic order of
// changes to the disk).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "storage/fault_fs.h"
#include "storage/log_manager.h"
#include "test_util.h"

namespace spool::storage::testing {

struct FaultFsRoot {
  explicit FaultFsRoot(const std::string& name = "data") : root(d.sub(name)) {
    std::filesystem::create_directories(root);
    ffs = std::make_unique<FaultFs>(root);
    scope_ = std::make_unique<ScopedFs>(*ffs);
  }

  TempDir d;
  std::string root;
  std::unique_ptr<FaultFs> ffs;

 private:
  std::unique_ptr<ScopedFs> scope_;
};

inline LogManager::Options fault_test_options(const std::string& root, const LogConfig& defaults) {
  LogManager::Options o;
  o.log_dirs = {root};
  o.defaults = defaults;
  o.broker_id = 1;
  o.cleaner_enable = false;
  return o;
}

}  // namespace spool::storage::testing
