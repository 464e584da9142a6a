// The one scratch directory of a fuzz target's process, for targets that
// must put their input on disk (index files, segments, a broker's log dir):
// made once (mkdtemp) under /dev/shm when it exists (no disk I/O, so
// executions stay fast) or else the system temp dir, reused by every
// execution, removed when the process exits normally. A crash leaves it
// behind on purpose, next to the crashing input. Not thread-safe (libFuzzer
// runs one input at a time).
#pragma once

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

namespace spool::fuzz {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix) {
    std::error_code ec;
    const std::filesystem::path base =
        std::filesystem::is_directory("/dev/shm", ec) ? std::filesystem::path("/dev/shm")
                                                      : std::filesystem::temp_directory_path();
    std::string tmpl = (base / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      std::perror(tmpl.c_str());
      std::abort();
    }
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }
  // Empties the directory (keeps it).
  void clear() const {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(path_, ec)) std::filesystem::remove_all(e.path(), ec);
  }

 private:
  std::string path_;
};

// The process's scratch dir (made on first use).
inline const ScratchDir& scratch_dir(const std::string& prefix) {
  static ScratchDir dir(prefix);
  return dir;
}

}  // namespace spool::fuzz
