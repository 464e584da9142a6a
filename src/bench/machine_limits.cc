#include "bench/machine_limits.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;

Status sys_error(const std::string& what, int err) {
  return Status::error(fmt::format("{}: {}", what, std::strerror(err)));
}

// Closes a descriptor on every path out of a function.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// Unlinks the temp file on every path out of disk_write_MBps.
class Unlinker {
 public:
  explicit Unlinker(std::string path) : path_(std::move(path)) {}
  ~Unlinker() { ::unlink(path_.c_str()); }
  Unlinker(const Unlinker&) = delete;
  Unlinker& operator=(const Unlinker&) = delete;

 private:
  std::string path_;
};

// Data that a compressing or deduplicating file system cannot shrink.
std::vector<char> random_chunk() {
  std::vector<char> buf(kMachineChunkBytes);
  std::mt19937_64 rng(0x5b001);
  for (size_t i = 0; i + 8 <= buf.size(); i += 8) {
    uint64_t x = rng();
    std::memcpy(buf.data() + i, &x, 8);
  }
  return buf;
}

}  // namespace

Result<double> loopback_MBps(double seconds) {
  if (!(seconds > 0) || seconds > 600) return Status::error(fmt::format("loopback: bad duration {}", seconds));
  Fd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (listener.get() < 0) return sys_error("loopback: socket", errno);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    return sys_error("loopback: bind", errno);
  if (::listen(listener.get(), 1) != 0) return sys_error("loopback: listen", errno);
  if (::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    return sys_error("loopback: getsockname", errno);
  Fd client(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (client.get() < 0) return sys_error("loopback: socket", errno);
  // The listen backlog completes the handshake, so connect before accept is fine.
  if (::connect(client.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    return sys_error("loopback: connect", errno);
  Fd server(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (server.get() < 0) return sys_error("loopback: accept", errno);

  const std::vector<char> chunk = random_chunk();
  const auto duration = std::chrono::duration<double>(seconds);
  std::atomic<int> writer_errno{0};
  const auto start = Clock::now();
  std::thread writer([&] {
    while (Clock::now() - start < duration) {
      size_t off = 0;
      while (off < chunk.size()) {
        ssize_t n = ::send(client.get(), chunk.data() + off, chunk.size() - off, MSG_NOSIGNAL);
        if (n < 0) {
          if (errno == EINTR) continue;
          writer_errno = errno;
          ::shutdown(client.get(), SHUT_WR);
          return;
        }
        off += static_cast<size_t>(n);
      }
    }
    ::shutdown(client.get(), SHUT_WR);  // EOF tells the reader the pump is over
  });

  std::vector<char> buf(kMachineChunkBytes);
  uint64_t received = 0;
  int reader_errno = 0;
  for (;;) {
    ssize_t n = ::recv(server.get(), buf.data(), buf.size(), 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      reader_errno = errno;
      // Unblock the writer so the join below cannot hang.
      ::shutdown(server.get(), SHUT_RDWR);
      break;
    }
    received += static_cast<uint64_t>(n);
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  writer.join();
  if (reader_errno != 0) return sys_error("loopback: recv", reader_errno);
  if (writer_errno != 0) return sys_error("loopback: send", writer_errno);
  if (received == 0 || !(elapsed > 0)) return Status::error("loopback: nothing was transferred");
  return static_cast<double>(received) / elapsed / 1e6;
}

Result<double> disk_write_MBps(const std::string& dir, int64_t bytes, bool fdatasync_each_chunk) {
  if (bytes <= 0) return Status::error(fmt::format("disk write: bad size {}", bytes));
  if (dir.empty()) return Status::error("disk write: empty directory name");
  std::string path = dir + "/spool-disk-bench-XXXXXX";
  Fd fd(::mkostemp(path.data(), O_CLOEXEC));
  if (fd.get() < 0) return sys_error(fmt::format("disk write: create temp file in {}", dir), errno);
  Unlinker remove_file(path);

  const std::vector<char> chunk = random_chunk();
  const auto start = Clock::now();
  int64_t written = 0;
  while (written < bytes) {
    size_t want = static_cast<size_t>(std::min<int64_t>(bytes - written, static_cast<int64_t>(chunk.size())));
    size_t off = 0;
    while (off < want) {
      ssize_t n = ::write(fd.get(), chunk.data() + off, want - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        return sys_error(fmt::format("disk write: write {}", path), errno);
      }
      off += static_cast<size_t>(n);
    }
    written += static_cast<int64_t>(want);
    if (fdatasync_each_chunk && ::fdatasync(fd.get()) != 0)
      return sys_error(fmt::format("disk write: fdatasync {}", path), errno);
  }
  if (!fdatasync_each_chunk && ::fdatasync(fd.get()) != 0)
    return sys_error(fmt::format("disk write: fdatasync {}", path), errno);
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (!(elapsed > 0)) return Status::error("disk write: clock did not advance");
  return static_cast<double>(bytes) / elapsed / 1e6;
}

}  // namespace spool::bench
