#include "bench/broker_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

std::string describe_wait_status(int st) {
  if (WIFEXITED(st)) return "exit " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) return "signal " + std::to_string(WTERMSIG(st));
  return "status " + std::to_string(st);
}

}  // namespace

Result<std::string> self_executable() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return Status::error(std::string("readlink /proc/self/exe: ") + std::strerror(errno));
  return std::string(buf, static_cast<size_t>(n));
}

Result<int> free_loopback_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in a = loopback(0);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    std::string err = std::strerror(errno);
    close(fd);
    return Status::error("picking a free port: " + err);
  }
  close(fd);
  return static_cast<int>(ntohs(a.sin_port));
}

bool port_accepts(int port, int timeout_ms) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return false;
  sockaddr_in a = loopback(port);
  bool ok = false;
  int rc = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  if (rc == 0) {
    ok = true;
  } else if (errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, timeout_ms) == 1) {
      int err = 0;
      socklen_t len = sizeof err;
      ok = getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
    }
  }
  close(fd);
  return ok;
}

Result<double> process_rss_MB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  if (!in) return Status::error("cannot read /proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      double kb = 0;
      if (fields >> kb) return kb * 1024.0 / 1e6;
    }
  }
  return Status::error("no VmRSS in /proc/" + std::to_string(pid) + "/status");
}

Result<double> process_cpu_seconds(pid_t pid) {
  clockid_t clock;
  if (int e = clock_getcpuclockid(pid, &clock); e != 0)
    return Status::error("clock_getcpuclockid(" + std::to_string(pid) + "): " + std::strerror(e));
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0)
    return Status::error("clock_gettime(CPU clock of " + std::to_string(pid) + "): " + std::strerror(errno));
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::string listener_list(const std::vector<ExtraListener>& extra) {
  std::string s;
  for (const auto& l : extra) s += (s.empty() ? "" : ",") + l.name + "://" + l.bootstrap();
  return s;
}

std::string protocol_list(const std::vector<ExtraListener>& extra) {
  std::string s;
  for (const auto& l : extra) s += (s.empty() ? "" : ",") + l.name + ":" + l.protocol;
  return s;
}

BrokerProcess::BrokerProcess(std::string exe, std::string data_dir, std::vector<std::string> overrides,
                             std::string log_path, std::vector<ExtraListener> extra_listeners)
    : exe_(std::move(exe)),
      data_dir_(std::move(data_dir)),
      overrides_(std::move(overrides)),
      log_path_(std::move(log_path)),
      extra_(std::move(extra_listeners)) {}

BrokerProcess::~BrokerProcess() { kill9(); }

Status BrokerProcess::spawn() {
  std::string listeners = "PLAINTEXT://127.0.0.1:" + std::to_string(port_);
  if (!extra_.empty()) listeners += "," + listener_list(extra_);
  std::vector<std::string> args = {exe_, "broker", "--override", "listeners=" + listeners, "--override",
                                   "log.dirs=" + data_dir_};
  if (!extra_.empty()) {
    args.push_back("--override");
    args.push_back("listener.security.protocol.map=PLAINTEXT:PLAINTEXT," + protocol_list(extra_));
  }
  for (const auto& o : overrides_) {
    args.push_back("--override");
    args.push_back(o);
  }
  // Last, so it wins: the bench owns the admin listener (header comment).
  args.push_back("--override");
  args.push_back(admin_port_ > 0 ? "admin.listener=http://127.0.0.1:" + std::to_string(admin_port_)
                                 : std::string("admin.listener="));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int log_fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return Status::error("open " + log_path_ + ": " + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    return Status::error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    execv(exe_.c_str(), argv.data());
    _exit(127);
  }
  close(log_fd);
  pid_ = pid;
  return Status::ok();
}

Status BrokerProcess::start(double timeout_s) {
  if (running()) return Status::error("broker already running");
  bool first = port_ == 0;
  for (int attempt = 0; attempt < (first ? 2 : 1); ++attempt) {
    if (first) {
      auto port = free_loopback_port();
      if (!port) return port.status();
      port_ = *port;
      if (admin_wanted_) {
        auto admin = free_loopback_port();
        if (!admin) return admin.status();
        admin_port_ = *admin;
      }
    }
    if (auto st = spawn(); !st) return st;
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    while (Clock::now() < deadline) {
      int st = 0;
      pid_t r = waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        std::string tail = log_tail();
        bool port_race = tail.find("in use") != std::string::npos;
        if (first && attempt == 0 && port_race) break;  // retry on new ports
        return Status::error("broker exited (" + describe_wait_status(st) + ") before listening:\n" + tail);
      }
      if (port_accepts(port_, 100)) return Status::ok();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (pid_ > 0) {
      kill9();
      return Status::error("broker did not accept connections within " + std::to_string(timeout_s) + " s:\n" +
                           log_tail());
    }
  }
  return Status::error("broker could not bind a free port:\n" + log_tail());
}

bool BrokerProcess::running() {
  if (pid_ <= 0) return false;
  int st = 0;
  if (waitpid(pid_, &st, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

void BrokerProcess::kill9() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int st = 0;
  while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

Status BrokerProcess::stop(double timeout_s) {
  if (pid_ <= 0) return Status::ok();
  ::kill(pid_, SIGTERM);
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  while (Clock::now() < deadline) {
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = -1;
      if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return Status::ok();
      return Status::error("broker stopped with " + describe_wait_status(st));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill9();
  return Status::error("broker ignored SIGTERM for " + std::to_string(timeout_s) + " s; killed");
}

std::string file_tail(const std::string& path, size_t max_chars) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (all.size() > max_chars) all = "..." + all.substr(all.size() - max_chars);
  return all;
}

std::string BrokerProcess::log_tail(size_t max_chars) const { return file_tail(log_path_, max_chars); }

}  // namespace spool::bench
