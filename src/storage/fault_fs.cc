#include "storage/fault_fs.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

namespace spool::storage {
namespace {

constexpr size_t kPage = 4096;
namespace stdfs = std::filesystem;

std::string parent_of(const std::string& p) { return stdfs::path(p).parent_path().string(); }

bool has_prefix_dir(const std::string& p, const std::string& dir) {
  return p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && p[dir.size()] == '/';
}

int fail(int err) {
  errno = err;
  return -1;
}

}  // namespace

std::string FaultFs::CutReport::to_string() const {
  return "files kept " + std::to_string(files_kept) + ", names lost " + std::to_string(names_lost) +
         ", unsynced bytes dropped " + std::to_string(bytes_dropped) + ", unsynced pages kept " +
         std::to_string(pages_kept);
}

FaultFs::FaultFs(std::string root) : root_(stdfs::absolute(root).lexically_normal().string()) {
  std::lock_guard lk(mu_);
  adopt_locked();
}

std::string FaultFs::norm(const char* path) const {
  std::string p = stdfs::absolute(path).lexically_normal().string();
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

bool FaultFs::under(const std::string& p) const { return p == root_ || has_prefix_dir(p, root_); }

std::string FaultFs::read_path(const std::string& path) {
  std::string out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[1 << 16];
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    out.append(buf, static_cast<size_t>(r));
  }
  ::close(fd);
  return out;
}

void FaultFs::adopt_locked() {
  inodes_.clear();
  cur_files_.clear();
  cur_dirs_.clear();
  cur_dirs_.insert(root_);
  std::error_code ec;
  if (stdfs::exists(root_, ec)) {
    for (auto it = stdfs::recursive_directory_iterator(root_, ec); !ec && it != stdfs::recursive_directory_iterator();
         it.increment(ec)) {
      const std::string p = it->path().lexically_normal().string();
      if (it->is_directory(ec)) {
        cur_dirs_.insert(p);
      } else if (it->is_regular_file(ec)) {
        uint64_t id = next_id_++;
        inodes_[id].durable = read_path(p);
        cur_files_[p] = id;
      }
    }
  }
  dur_files_ = cur_files_;
  dur_dirs_ = cur_dirs_;
}

void FaultFs::inject(Fault f) {
  std::lock_guard lk(mu_);
  rules_.push_back(std::move(f));
}

void FaultFs::clear_faults() {
  std::lock_guard lk(mu_);
  rules_.clear();
  short_pending_fd_ = -1;
}

void FaultFs::set_drop_syncs(bool drop) {
  std::lock_guard lk(mu_);
  drop_syncs_ = drop;
}

void FaultFs::freeze() {
  std::lock_guard lk(mu_);
  frozen_ = true;
}

void FaultFs::freeze_after(uint64_t ops) {
  std::lock_guard lk(mu_);
  freeze_countdown_ = ops;
}

void FaultFs::thaw() {
  std::lock_guard lk(mu_);
  frozen_ = false;
  freeze_countdown_ = 0;
}

bool FaultFs::frozen() const {
  std::lock_guard lk(mu_);
  return frozen_;
}

uint64_t FaultFs::syncs() const {
  std::lock_guard lk(mu_);
  return syncs_;
}

uint64_t FaultFs::faults_injected() const {
  std::lock_guard lk(mu_);
  return faults_;
}

int FaultFs::fault_locked(Op op, const std::string& path, bool* short_first) {
  if (freeze_countdown_ > 0 && --freeze_countdown_ == 0) frozen_ = true;
  if (frozen_) return EIO;
  for (auto& r : rules_) {
    if (r.op != op || r.times == 0) continue;
    if (!r.path_contains.empty() && path.find(r.path_contains) == std::string::npos) continue;
    if (r.skip > 0) {
      --r.skip;
      continue;
    }
    if (r.times > 0) --r.times;
    ++faults_;
    if (short_first != nullptr) *short_first = r.short_first;
    return r.error;
  }
  return 0;
}

int FaultFs::open(const char* path, int flags, mode_t mode) {
  const std::string p = norm(path);
  const bool tracked = under(p);
  std::lock_guard lk(mu_);
  const bool creates = (flags & O_CREAT) != 0 && cur_files_.find(p) == cur_files_.end();
  if (tracked && frozen_) return fail(EIO);
  if (tracked && creates)
    if (int err = fault_locked(Op::kCreate, p); err != 0) return fail(err);
  int fd = ::open(path, flags, mode);
  if (fd < 0 || !tracked) return fd;
  fd_path_[fd] = p;
  if ((flags & O_DIRECTORY) != 0) {
    fd_dirs_.insert(fd);
    return fd;
  }
  auto it = cur_files_.find(p);
  if (it == cur_files_.end()) it = cur_files_.emplace(p, next_id_++).first;  // new: nothing durable
  inodes_.try_emplace(it->second);
  fd_file_[fd] = it->second;
  return fd;
}

int FaultFs::close(int fd) {
  {
    std::lock_guard lk(mu_);
    fd_file_.erase(fd);
    fd_path_.erase(fd);
    fd_dirs_.erase(fd);
    if (short_pending_fd_ == fd) short_pending_fd_ = -1;
  }
  return ::close(fd);
}

ssize_t FaultFs::pwrite(int fd, const void* data, size_t n, off_t pos) {
  {
    std::lock_guard lk(mu_);
    auto it = fd_path_.find(fd);
    if (it != fd_path_.end()) {
      if (short_pending_fd_ == fd) {
        short_pending_fd_ = -1;
        return fail(short_pending_error_);
      }
      bool short_first = false;
      if (int err = fault_locked(Op::kWrite, it->second, &short_first); err != 0) {
        if (!short_first || n < 2) return fail(err);
        short_pending_fd_ = fd;
        short_pending_error_ = err;
        n /= 2;  // this half lands; the next call fails
      }
    }
  }
  ssize_t w = ::pwrite(fd, data, n, pos);
  if (w > 0) forget_lost(fd, pos, w);
  return w;
}

void FaultFs::forget_lost(int fd, int64_t pos, int64_t n) {
  // A write dirties its pages again: they will be written back whole.
  std::lock_guard lk(mu_);
  auto it = fd_file_.find(fd);
  if (it == fd_file_.end()) return;
  auto& lost = inodes_[it->second].lost;
  const int64_t a = pos / static_cast<int64_t>(kPage) * static_cast<int64_t>(kPage);
  const int64_t b = (pos + n + static_cast<int64_t>(kPage) - 1) / static_cast<int64_t>(kPage) * static_cast<int64_t>(kPage);
  std::vector<std::pair<int64_t, int64_t>> kept;
  for (const auto& [x, y] : lost) {
    if (y <= a || x >= b) {
      kept.emplace_back(x, y);
      continue;
    }
    if (x < a) kept.emplace_back(x, a);
    if (y > b) kept.emplace_back(b, y);
  }
  lost = std::move(kept);
}

int FaultFs::ftruncate(int fd, off_t length) {
  {
    std::lock_guard lk(mu_);
    auto it = fd_path_.find(fd);
    if (it != fd_path_.end())
      if (int err = fault_locked(Op::kTruncate, it->second); err != 0) return fail(err);
  }
  return ::ftruncate(fd, length);
}

int FaultFs::truncate(const char* path, off_t length) {
  const std::string p = norm(path);
  {
    std::lock_guard lk(mu_);
    if (under(p))
      if (int err = fault_locked(Op::kTruncate, p); err != 0) return fail(err);
  }
  return ::truncate(path, length);
}

int FaultFs::fallocate(int fd, int mode, off_t offset, off_t length) {
  {
    std::lock_guard lk(mu_);
    auto it = fd_path_.find(fd);
    if (it != fd_path_.end())
      if (int err = fault_locked(Op::kWrite, it->second); err != 0) return fail(err);
  }
  return ::fallocate(fd, mode, offset, length);
}

void FaultFs::sync_dir_locked(const std::string& dir) {
  // The directory's entries become what they are now: names of files and
  // subdirectories directly inside it.
  auto direct = [&](const std::string& p) { return parent_of(p) == dir; };
  for (auto it = dur_files_.begin(); it != dur_files_.end();) it = direct(it->first) ? dur_files_.erase(it) : ++it;
  for (auto it = dur_dirs_.begin(); it != dur_dirs_.end();) it = direct(*it) ? dur_dirs_.erase(it) : ++it;
  for (const auto& [p, id] : cur_files_)
    if (direct(p)) dur_files_[p] = id;
  for (const auto& d : cur_dirs_)
    if (direct(d)) dur_dirs_.insert(d);
}

int FaultFs::sync_file(int fd) {
  std::lock_guard lk(mu_);
  auto pit = fd_path_.find(fd);
  if (pit == fd_path_.end()) return ::fsync(fd);  // not under the root: a real sync
  if (int err = fault_locked(Op::kSync, pit->second); err != 0) {
    if (!frozen_) {
      // The kernel drops the failed pages' dirty state: what this sync
      // covered is never written, whatever a later sync says.
      auto fit = fd_file_.find(fd);
      if (fit != fd_file_.end()) {
        Inode& ino = inodes_[fit->second];
        struct stat st;
        if (::fstat(fd, &st) == 0) ino.lost.emplace_back(0, static_cast<int64_t>(st.st_size));
      }
    }
    return fail(err);
  }
  if (drop_syncs_) return 0;
  ++syncs_;
  if (fd_dirs_.count(fd) != 0) {
    sync_dir_locked(pit->second);
    return 0;
  }
  auto fit = fd_file_.find(fd);
  if (fit == fd_file_.end()) return 0;
  Inode& ino = inodes_[fit->second];
  // The descriptor may be write-only: read the file through /proc.
  std::string now = read_path("/proc/self/fd/" + std::to_string(fd));
  patch_lost(ino, now);
  ino.durable = std::move(now);
  return 0;
}

int FaultFs::fsync(int fd) { return sync_file(fd); }
int FaultFs::fdatasync(int fd) { return sync_file(fd); }

int FaultFs::syncfs(int fd) {
  std::lock_guard lk(mu_);
  if (int err = fault_locked(Op::kSync, root_); err != 0) return fail(err);
  if (drop_syncs_) return 0;
  ++syncs_;
  for (const auto& [p, id] : cur_files_) inodes_[id].durable = read_path(p);
  dur_files_ = cur_files_;
  dur_dirs_ = cur_dirs_;
  return 0;
}

int FaultFs::rename(const char* from, const char* to) {
  const std::string a = norm(from), b = norm(to);
  std::lock_guard lk(mu_);
  if (under(a) || under(b))
    if (int err = fault_locked(Op::kRename, a); err != 0) return fail(err);
  if (::rename(from, to) != 0) return -1;
  if (cur_dirs_.count(a) != 0) {
    // A directory moves with what it holds; the model makes the move itself
    // durable at once (the one simplification: directories have no inode
    // here). Spool renames directories only to delete them, and syncs the
    // parent right after.
    auto move_files = [&](std::map<std::string, uint64_t>& m) {
      std::map<std::string, uint64_t> moved;
      for (auto it = m.begin(); it != m.end();) {
        if (!has_prefix_dir(it->first, a)) {
          ++it;
          continue;
        }
        moved[b + it->first.substr(a.size())] = it->second;
        it = m.erase(it);
      }
      m.insert(moved.begin(), moved.end());
    };
    auto move_dirs = [&](std::set<std::string>& m) {
      std::set<std::string> moved;
      for (auto it = m.begin(); it != m.end();) {
        if (*it != a && !has_prefix_dir(*it, a)) {
          ++it;
          continue;
        }
        moved.insert(b + it->substr(a.size()));
        it = m.erase(it);
      }
      m.insert(moved.begin(), moved.end());
    };
    move_files(cur_files_);
    move_files(dur_files_);
    move_dirs(cur_dirs_);
    move_dirs(dur_dirs_);
    return 0;
  }
  auto it = cur_files_.find(a);
  uint64_t id = it != cur_files_.end() ? it->second : next_id_++;
  if (it != cur_files_.end()) cur_files_.erase(it);
  inodes_.try_emplace(id);
  if (under(b)) cur_files_[b] = id;
  return 0;
}

int FaultFs::unlink(const char* path) {
  const std::string p = norm(path);
  std::lock_guard lk(mu_);
  if (under(p))
    if (int err = fault_locked(Op::kRemove, p); err != 0) return fail(err);
  if (::unlink(path) != 0) return -1;
  cur_files_.erase(p);
  return 0;
}

int FaultFs::mkdir(const char* path, mode_t mode) {
  const std::string p = norm(path);
  std::lock_guard lk(mu_);
  if (under(p))
    if (int err = fault_locked(Op::kCreate, p); err != 0) return fail(err);
  if (::mkdir(path, mode) != 0) return -1;
  if (under(p)) cur_dirs_.insert(p);
  return 0;
}

int FaultFs::rmdir(const char* path) {
  const std::string p = norm(path);
  std::lock_guard lk(mu_);
  if (under(p))
    if (int err = fault_locked(Op::kRemove, p); err != 0) return fail(err);
  if (::rmdir(path) != 0) return -1;
  cur_dirs_.erase(p);
  return 0;
}

void* FaultFs::mmap(size_t length, int prot, int flags, int fd) {
  // Stores into a shared mapping reach the file at once (as for read());
  // they become durable with the file's next fsync, like any write.
  return ::mmap(nullptr, length, prot, flags, fd, 0);
}

int FaultFs::munmap(void* addr, size_t length) { return ::munmap(addr, length); }

int FaultFs::msync(void* addr, size_t length, int flags) {
  std::lock_guard lk(mu_);
  return frozen_ ? fail(EIO) : 0;  // the fsync that follows records the content
}

void FaultFs::patch_lost(const Inode& ino, std::string& content) {
  // Pages a failed sync lost are clean in the cache but were never written:
  // the disk keeps its old bytes there, whatever the cache shows.
  for (const auto& [a, b] : ino.lost)
    for (int64_t i = a; i < b && static_cast<size_t>(i) < content.size(); ++i) {
      const auto u = static_cast<size_t>(i);
      content[u] = u < ino.durable.size() ? ino.durable[u] : '\0';
    }
}

std::string FaultFs::current_for_cut(uint64_t id, const Inode& ino) const {
  for (const auto& [p, cid] : cur_files_) {
    if (cid != id) continue;
    std::string c = read_path(p);
    patch_lost(ino, c);
    return c;
  }
  return ino.durable;  // no current name: only the durable bytes exist
}

FaultFs::CutPlan FaultFs::plan_cut_locked(uint64_t seed) {
  std::mt19937_64 rng(seed);
  CutPlan plan;
  // A durable name counts only if every directory above it is durable too.
  auto reachable = [&](const std::string& p) {
    for (std::string d = parent_of(p); d != root_ && under(d); d = parent_of(d))
      if (dur_dirs_.count(d) == 0) return false;
    return true;
  };
  for (const auto& [p, id] : dur_files_) {
    if (!reachable(p)) continue;
    const Inode& ino = inodes_[id];
    const std::string& d = ino.durable;
    const std::string c = current_for_cut(id, ino);
    size_t len = d.size();
    if (c.size() > d.size()) {
      std::vector<size_t> cands{d.size()};
      for (size_t b = (d.size() / kPage + 1) * kPage; b < c.size(); b += kPage) cands.push_back(b);
      cands.push_back(c.size());
      len = cands[rng() % cands.size()];
    }
    std::string f = d;
    f.resize(len, '\0');
    for (size_t a = 0; a < len; a += kPage) {
      const size_t e = std::min(len, a + kPage);
      const size_t ce = std::min(e, c.size());
      if (a >= ce) continue;
      const bool unsynced = std::memcmp(f.data() + a, c.data() + a, ce - a) != 0;
      if (!unsynced) continue;
      if (a >= d.size() || rng() % 2 == 0) {
        std::memcpy(f.data() + a, c.data() + a, ce - a);
        ++plan.report.pages_kept;
      }
    }
    for (size_t i = 0; i < c.size(); ++i)  // zeros of sparse, preallocated files are no data
      if (c[i] != '\0' && (i >= f.size() || f[i] != c[i])) ++plan.report.bytes_dropped;
    plan.files[p] = std::move(f);
  }
  for (const auto& [p, id] : cur_files_)
    if (plan.files.count(p) == 0) ++plan.report.names_lost;
  for (const auto& d : dur_dirs_)
    if (d != root_ && reachable(d)) plan.dirs.push_back(d);
  return plan;
}

void FaultFs::write_tree(const CutPlan& plan, const std::string& target, CutReport& rep) const {
  // `target` stands for the root: paths are moved over to it.
  auto moved = [&](const std::string& p) { return target + p.substr(root_.size()); };
  std::error_code ec;
  stdfs::create_directories(target, ec);
  for (const auto& d : plan.dirs) stdfs::create_directories(moved(d), ec);
  for (const auto& [p, content] : plan.files) {
    const std::string path = moved(p);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) continue;
    size_t done = 0;
    while (done < content.size()) {
      ssize_t w = ::write(fd, content.data() + done, content.size() - done);
      if (w <= 0) break;
      done += static_cast<size_t>(w);
    }
    ::close(fd);
    ++rep.files_kept;
  }
}

FaultFs::CutReport FaultFs::power_cut(uint64_t seed) {
  std::lock_guard lk(mu_);
  CutPlan plan = plan_cut_locked(seed);
  // Rebuild the tree: durable directories, then durable files.
  std::error_code ec;
  for (auto it = stdfs::directory_iterator(root_, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec))
    stdfs::remove_all(it->path(), ec);
  write_tree(plan, root_, plan.report);
  fd_file_.clear();
  fd_path_.clear();
  fd_dirs_.clear();
  short_pending_fd_ = -1;
  frozen_ = false;
  freeze_countdown_ = 0;
  adopt_locked();
  return plan.report;
}

void FaultFs::power_cut_into(const std::string& target, uint64_t seed,
                             const std::function<void(const CutReport&)>& then) {
  std::lock_guard lk(mu_);
  CutPlan plan = plan_cut_locked(seed);
  write_tree(plan, target, plan.report);
  frozen_ = true;
  then(plan.report);
}

}  // namespace spool::storage
