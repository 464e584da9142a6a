#include "storage/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include <spdlog/spdlog.h>

#include "storage/fs.h"
#include "util/clock.h"

namespace spool::storage {
namespace {
std::atomic<uint64_t> g_sync_calls{0};
}

Status errno_status(const std::string& what) {
  const int err = errno;
  return Status::sys_error(what + ": " + std::strerror(err), err, kStorageError);
}

bool is_disk_full(const Status& s) { return s.sys_errno() == ENOSPC || s.sys_errno() == EDQUOT; }

Status pwrite_all(int fd, const uint8_t* data, size_t n, int64_t pos) {
  while (n > 0) {
    ssize_t w = fs().pwrite(fd, data, n, pos);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno_status("pwrite");
    }
    data += w;
    n -= static_cast<size_t>(w);
    pos += w;
  }
  return Status::ok();
}

Result<size_t> pread_full(int fd, uint8_t* data, size_t n, int64_t pos) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, data + done, n - done, pos + static_cast<int64_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return errno_status("pread");
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return done;
}

Status data_sync(int fd) {
  g_sync_calls.fetch_add(1, std::memory_order_relaxed);
  if (fs().fdatasync(fd) != 0) return errno_status("fdatasync");
  return Status::ok();
}

Status full_sync(int fd) {
  g_sync_calls.fetch_add(1, std::memory_order_relaxed);
  if (fs().fsync(fd) != 0) return errno_status("fsync");
  return Status::ok();
}

uint64_t sync_call_count() { return g_sync_calls.load(std::memory_order_relaxed); }

Status sync_dir(const std::string& dir) {
  int fd = fs().open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0) return errno_status("open dir " + dir);
  Status s = full_sync(fd);
  fs().close(fd);
  return s;
}

Status write_file_atomic(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp";
  int fd = fs().open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_status("create " + tmp);
  Status s = pwrite_all(fd, reinterpret_cast<const uint8_t*>(content.data()), content.size(), 0);
  if (s) s = full_sync(fd);
  fs().close(fd);
  if (!s) return s;
  if (fs().rename(tmp.c_str(), path.c_str()) != 0) return errno_status("rename " + tmp);
  return sync_dir(std::filesystem::path(path).parent_path().string());
}

Status write_file_replace(const std::string& path, ByteSpan content) {
  std::string tmp = path + ".tmp";
  int fd = fs().open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_status("create " + tmp);
  Status s = pwrite_all(fd, content.data(), content.size(), 0);
  fs().close(fd);
  if (s && fs().rename(tmp.c_str(), path.c_str()) != 0) s = errno_status("rename " + tmp);
  if (!s) remove_file_quiet(tmp);
  return s;
}

Status remove_file(const std::string& path) {
  if (fs().unlink(path.c_str()) != 0 && errno != ENOENT) return errno_status("remove " + path);
  return Status::ok();
}

void remove_file_quiet(const std::string& path) {
  Status s = remove_file(path);
  if (!s) spdlog::warn("{}", s.message());
}

Result<std::string> read_small_file(const std::string& path, size_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_status("open " + path);
  auto size = file_size(fd);
  if (!size) { ::close(fd); return size.status(); }
  if (static_cast<size_t>(*size) > max_bytes) {
    ::close(fd);
    return Status::error(path + ": file too large", kStorageError);
  }
  std::string out(static_cast<size_t>(*size), '\0');
  auto n = pread_full(fd, reinterpret_cast<uint8_t*>(out.data()), out.size(), 0);
  ::close(fd);
  if (!n) return n.status();
  out.resize(*n);
  return out;
}

bool path_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Status make_dirs(const std::string& dir) {
  if (dir.empty()) return Status::ok();
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status::ok();
    return Status::error("create dir " + dir + ": not a directory", kStorageError);
  }
  const std::string parent = std::filesystem::path(dir).parent_path().string();
  if (parent != dir) {
    Status s = make_dirs(parent);
    if (!s) return s;
  }
  if (fs().mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return errno_status("create dir " + dir);
  return Status::ok();
}

Status remove_all(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::ok();
    return errno_status("remove " + path);
  }
  if (S_ISDIR(st.st_mode)) {
    std::error_code ec;
    std::vector<std::string> children;
    for (const auto& e : std::filesystem::directory_iterator(path, ec)) children.push_back(e.path().string());
    if (ec) return Status::error("remove " + path + ": " + ec.message(), kStorageError);
    for (const auto& c : children) {
      Status s = remove_all(c);
      if (!s) return s;
    }
    if (fs().rmdir(path.c_str()) != 0 && errno != ENOENT) return errno_status("remove " + path);
    return Status::ok();
  }
  if (fs().unlink(path.c_str()) != 0 && errno != ENOENT) return errno_status("remove " + path);
  return Status::ok();
}

Result<int64_t> file_size(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return errno_status("fstat");
  return static_cast<int64_t>(st.st_size);
}

int64_t now_ms() { return wall_clock_ms(); }

namespace {
constexpr char kBase64Url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
}  // namespace

std::string uuid_to_text(const Uuid& id) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (uint8_t x : id) {
    acc = (acc << 8) | x;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kBase64Url[(acc >> bits) & 0x3f]);
    }
  }
  if (bits > 0) out.push_back(kBase64Url[(acc << (6 - bits)) & 0x3f]);
  return out;
}

std::optional<Uuid> uuid_from_text(std::string_view text) {
  if (text.size() != 22) return std::nullopt;
  Uuid id{};
  uint32_t acc = 0;
  int bits = 0;
  size_t n = 0;
  for (char c : text) {
    const char* pos = std::char_traits<char>::find(kBase64Url, 64, c);
    if (pos == nullptr) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(pos - kBase64Url);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      id[n++] = static_cast<uint8_t>(acc >> bits);
    }
  }
  // 22 chars carry 132 bits: the 4 left over must be zero (canonical form).
  if (n != id.size() || (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
  return id;
}

std::string random_id() {
  std::random_device rd;
  Uuid b;
  for (auto& x : b) x = static_cast<uint8_t>(rd());
  return uuid_to_text(b);
}

}  // namespace spool::storage
