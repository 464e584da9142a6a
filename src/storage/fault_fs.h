// FaultFs: a FileSystem for tests (LevelDB's fault-injection Env, RocksDB's
// FaultInjectionTestFS) that knows, for every file and directory under one
// root, what has been made durable, and can lose the rest.
//
// Durability model (what a power cut may keep):
//   - a file's content is durable as of its last successful fsync/fdatasync
//     (or syncfs); bytes written since then may or may not have reached the
//     disk, page by page, and an unsynced extension may survive up to any
//     page boundary (a torn tail);
//   - a name (create, rename, unlink, mkdir, rmdir) is durable only once its
//     parent directory has been fsynced (except that renaming a directory is
//     durable at once: directories carry no inode in this model);
//   - a failed fsync loses the data it covered for good, as Linux does (the
//     pages are marked clean): a later fsync that succeeds does not make it
//     durable ("fsyncgate"), unless a later write dirtied the page again.
// Syncs are recorded, not performed (tests need no real durability), which
// also makes them fast.
//
// Faults on demand: inject() fails chosen operations with an errno (EIO,
// ENOSPC...) or makes a write short first; set_drop_syncs(true) turns every
// sync into a no-op that reports success (the "fsync removed" switch that
// proves the power-cut tests can fail); freeze() fails every later change
// with EIO (the machine is dead) until power_cut() or thaw().
//
// Files created under the root other than through fs() are not tracked and
// do not survive power_cut(). Everything already under the root when the
// FaultFs is made counts as durable.
//
// Threading: all methods are thread-safe. power_cut() needs every storage
// object using the files closed first (mappings included).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "storage/fs.h"

namespace spool::storage {

class FaultFs : public FileSystem {
 public:
  explicit FaultFs(std::string root);

  enum class Op { kWrite, kSync, kCreate, kRename, kTruncate, kRemove };
  struct Fault {
    Op op = Op::kWrite;
    int error = 5;                 // errno: EIO
    std::string path_contains;     // empty: any path under the root
    int skip = 0;                  // matching operations let through first
    int times = 1;                 // failures to inject (-1: forever)
    bool short_first = false;      // kWrite: write half, then fail the rest
  };
  void inject(Fault f);
  void clear_faults();
  void set_drop_syncs(bool drop);
  void freeze();
  // freeze() at the `ops`-th change from now (1: the next one fails): a
  // power cut at a precise instant. Changes are creates, writes, truncates,
  // syncs, renames and removes under the root.
  void freeze_after(uint64_t ops);
  void thaw();
  bool frozen() const;

  struct CutReport {
    uint64_t files_kept = 0;       // durable names rewritten
    uint64_t names_lost = 0;       // files whose name was never made durable
    uint64_t bytes_dropped = 0;    // unsynced bytes that did not survive
    uint64_t pages_kept = 0;       // unsynced pages that did survive
    std::string to_string() const;
  };
  // Rewrites the tree under the root to one state a disk could hold after
  // losing power now (random choices from `seed`), then starts over with
  // that state as the durable one, thawed.
  CutReport power_cut(uint64_t seed);
  // The same state written into `target` (a directory standing for the
  // root), the root left alone: a power cut for a process that is about to
  // die (the tree is swapped in before it restarts). No change goes through
  // from the moment the state is taken until `then` (which should end the
  // process) returns, and the FaultFs stays frozen after it.
  void power_cut_into(const std::string& target, uint64_t seed, const std::function<void(const CutReport&)>& then);

  uint64_t syncs() const;          // recorded (successful) syncs
  uint64_t faults_injected() const;

  int open(const char* path, int flags, mode_t mode) override;
  int close(int fd) override;
  ssize_t pwrite(int fd, const void* data, size_t n, off_t pos) override;
  int ftruncate(int fd, off_t length) override;
  int truncate(const char* path, off_t length) override;
  int fallocate(int fd, int mode, off_t offset, off_t length) override;
  int fsync(int fd) override;
  int fdatasync(int fd) override;
  int syncfs(int fd) override;
  int rename(const char* from, const char* to) override;
  int unlink(const char* path) override;
  int mkdir(const char* path, mode_t mode) override;
  int rmdir(const char* path) override;
  void* mmap(size_t length, int prot, int flags, int fd) override;
  int munmap(void* addr, size_t length) override;
  int msync(void* addr, size_t length, int flags) override;

 private:
  struct Inode {
    std::string durable;                              // content as of the last sync
    std::vector<std::pair<int64_t, int64_t>> lost;    // ranges a failed sync lost
  };
  std::string norm(const char* path) const;
  bool under(const std::string& p) const;
  void adopt_locked();
  // errno to fail `op` on `path` with (0: none); sets *short_first.
  int fault_locked(Op op, const std::string& path, bool* short_first = nullptr);
  int sync_file(int fd);
  void sync_dir_locked(const std::string& dir);
  static std::string read_path(const std::string& path);
  std::string current_for_cut(uint64_t id, const Inode& ino) const;
  struct CutPlan {
    std::map<std::string, std::string> files;  // path under the root -> content
    std::vector<std::string> dirs;
    CutReport report;
  };
  CutPlan plan_cut_locked(uint64_t seed);
  void write_tree(const CutPlan& plan, const std::string& target, CutReport& rep) const;
  static void patch_lost(const Inode& ino, std::string& content);
  void forget_lost(int fd, int64_t pos, int64_t n);

  const std::string root_;
  mutable std::mutex mu_;
  bool frozen_ = false;
  bool drop_syncs_ = false;
  uint64_t freeze_countdown_ = 0;  // 0: off
  uint64_t next_id_ = 1;
  uint64_t syncs_ = 0;
  uint64_t faults_ = 0;
  std::vector<Fault> rules_;
  std::map<uint64_t, Inode> inodes_;
  std::map<std::string, uint64_t> cur_files_, dur_files_;
  std::set<std::string> cur_dirs_, dur_dirs_;
  std::map<int, uint64_t> fd_file_;
  std::map<int, std::string> fd_path_;              // files and directories
  std::set<int> fd_dirs_;
  int short_pending_fd_ = -1;                       // a short write's second half fails
  int short_pending_error_ = 0;
};

// Installs a FaultFs for the life of the object (tests).
class ScopedFs {
 public:
  explicit ScopedFs(FileSystem& f) : prev_(install_fs(&f)) {}
  ~ScopedFs() { install_fs(prev_); }
  ScopedFs(const ScopedFs&) = delete;
  ScopedFs& operator=(const ScopedFs&) = delete;

 private:
  FileSystem* prev_;
};

}  // namespace spool::storage
