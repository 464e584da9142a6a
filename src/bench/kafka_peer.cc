// The Kafka 4.4 peer process and child-process helpers (see kafka_peer.h).
#include "bench/kafka_peer.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;

bool executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

Clock::time_point deadline_after(double s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// This process's environment with `env` ("KEY=VALUE") set on top.
std::vector<std::string> environment_with(const std::vector<std::string>& env) {
  std::vector<std::string> out;
  auto key = [](const std::string& kv) { return kv.substr(0, kv.find('=') + 1); };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string kv = *e;
    bool replaced = false;
    for (const auto& mine : env) replaced = replaced || key(mine) == key(kv);
    if (!replaced) out.push_back(std::move(kv));
  }
  out.insert(out.end(), env.begin(), env.end());
  return out;
}

// fork + exec with stdin </dev/null, stdout to `out_fd` (or /dev/null when
// < 0), stderr appended to `log_path` (or /dev/null), `env` added to the
// environment.
Result<pid_t> spawn(const std::vector<std::string>& argv_in, int out_fd, const std::string& log_path,
                    const std::vector<std::string>& env = {}) {
  if (argv_in.empty()) return Status::error("empty command");
  std::vector<std::string> args = argv_in;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Built before fork: the child may only make async-signal-safe calls.
  std::vector<std::string> envs = environment_with(env);
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  int err_fd = log_path.empty() ? open("/dev/null", O_WRONLY | O_CLOEXEC)
                                : open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (err_fd < 0) return Status::error("open " + log_path + ": " + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(err_fd);
    return Status::error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    dup2(out_fd >= 0 ? out_fd : devnull, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(err_fd);
  return pid;
}

int decode(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  return -1;
}

}  // namespace

Result<std::string> locate_repo_script(const std::string& option, const std::string& option_name,
                                       const std::string& env_var, const std::string& rel_path,
                                       const std::string& exe) {
  std::vector<std::string> tried;
  auto check = [&](const std::string& p, const std::string& why) -> bool {
    tried.push_back(p + " (" + why + ")");
    return executable(p);
  };
  if (!option.empty()) {
    if (check(option, option_name)) return option;
    return Status::error(option_name + " " + option + " is not an executable file");
  }
  if (const char* env = std::getenv(env_var.c_str()); env && *env) {
    if (check(env, "$" + env_var)) return std::string(env);
    return Status::error("$" + env_var + "=" + env + " is not an executable file");
  }
  if (!exe.empty()) {
    std::filesystem::path repo = std::filesystem::path(exe).parent_path().parent_path();
    std::string p = (repo / rel_path).string();
    if (check(p, "next to the spool binary's build dir")) return p;
  }
  std::error_code ec;
  std::string cwd = std::filesystem::current_path(ec).string();
  if (!ec && check(cwd + "/" + rel_path, "current dir")) return cwd + "/" + rel_path;
  std::string list;
  for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
  return Status::error(rel_path + " not found (tried " + list + "); pass " + option_name + " PATH or set $" +
                       env_var);
}

Result<std::string> locate_kafka_peer(const std::string& option, const std::string& exe) {
  return locate_repo_script(option, "--kafka-peer", "SPOOL_KAFKA_PEER", "scripts/kafka-peer", exe);
}

std::string find_java() {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    std::string p = dir + "/java";
    struct stat st{};
    if (stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && executable(p)) return p;
  }
  return "";
}

Result<CommandResult> run_command(const std::vector<std::string>& argv, double timeout_s,
                                  const std::string& log_path, const std::vector<std::string>& env) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::error(std::string("pipe: ") + std::strerror(errno));
  auto pid = spawn(argv, fds[1], log_path, env);
  close(fds[1]);
  if (!pid) {
    close(fds[0]);
    return pid.status();
  }
  CommandResult r;
  auto deadline = deadline_after(timeout_s);
  char buf[65536];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      r.timed_out = true;
      ::kill(*pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    ssize_t got = read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF: the child closed stdout (normally: exited)
    if (r.out.size() < (4u << 20)) r.out.append(buf, static_cast<size_t>(got));
  }
  close(fds[0]);
  // stdout closed; the child may still be finishing (bounded by the deadline).
  int st = 0;
  for (;;) {
    pid_t w = waitpid(*pid, &st, WNOHANG);
    if (w == *pid) break;
    if (w < 0 && errno != EINTR) return r;
    if (Clock::now() > deadline && !r.timed_out) {
      r.timed_out = true;
      ::kill(*pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.exit_code = r.timed_out ? -1 : decode(st);
  return r;
}

Result<std::string> kafka_classpath(const std::string& script) {
  auto r = run_command({script, "classpath"}, 60, "");
  if (!r) return r.status();
  std::string cp = r->out;
  while (!cp.empty() && (cp.back() == '\n' || cp.back() == '\r')) cp.pop_back();
  if (r->exit_code != 0 || cp.empty())
    return Status::error(script + " classpath failed (exit " + std::to_string(r->exit_code) +
                         "): run `" + script + " fetch` first");
  return cp;
}

KafkaPeer::KafkaPeer(std::string script, std::string dir, std::vector<std::string> overrides, std::string log_path,
                     std::vector<ExtraListener> extra)
    : script_(std::move(script)), dir_(std::move(dir)), overrides_(std::move(overrides)),
      log_path_(std::move(log_path)), extra_(std::move(extra)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
}

KafkaPeer::~KafkaPeer() {
  if (pending_start_ > 0) (void)finish_start(120);
  if (running()) kill9();
}

std::vector<std::string> KafkaPeer::start_argv() const {
  std::vector<std::string> a = {script_, "start", dir_, std::to_string(port_)};
  a.insert(a.end(), overrides_.begin(), overrides_.end());
  return a;
}

std::vector<std::string> KafkaPeer::start_env() const {
  if (extra_.empty()) return {};
  return {"KAFKA_PEER_EXTRA_LISTENERS=" + listener_list(extra_), "KAFKA_PEER_EXTRA_PROTOCOLS=" + protocol_list(extra_)};
}

bool KafkaPeer::running() const {
  pid_t pid = serving_pid();
  if (pid <= 0) return false;
  if (std::filesystem::exists(dir_ + "/kafka.exit")) return false;
  return ::kill(pid, 0) == 0;
}

pid_t KafkaPeer::serving_pid() const {
  std::ifstream in(dir_ + "/kafka.pid");
  long pid = -1;
  if (in >> pid && pid > 0) return static_cast<pid_t>(pid);
  return -1;
}

Status KafkaPeer::start(double timeout_s) {
  if (running()) return Status::error("kafka peer already running in " + dir_);
  bool first = port_ == 0;
  std::string why;
  for (int attempt = 0; attempt < (first ? 2 : 1); ++attempt) {
    if (first) {
      auto port = free_loopback_port();
      if (!port) return port.status();
      port_ = *port;
    }
    auto r = run_command(start_argv(), timeout_s + 30, log_path_, start_env());
    if (!r) return r.status();
    if (r->exit_code == 0) return Status::ok();
    why = r->timed_out ? "timed out" : "exit " + std::to_string(r->exit_code);
    if (running()) kill9();
  }
  return Status::error("kafka-peer start " + dir_ + " failed (" + why + "):\n" + log_tail());
}

Status KafkaPeer::start_listening(double timeout_s) {
  if (port_ == 0) return Status::error("start_listening before the first start");
  if (running()) return Status::error("kafka peer already running in " + dir_);
  std::error_code ec;
  std::filesystem::remove(dir_ + "/kafka.pid", ec);
  auto pid = spawn(start_argv(), -1, log_path_, start_env());
  if (!pid) return pid.status();
  pending_start_ = *pid;
  auto deadline = deadline_after(timeout_s);
  while (Clock::now() < deadline) {
    int st = 0;
    if (waitpid(pending_start_, &st, WNOHANG) == pending_start_) {
      pending_start_ = -1;
      if (decode(st) != 0) return Status::error("kafka-peer start failed:\n" + log_tail());
      return Status::ok();  // it served before we saw the port
    }
    if (port_accepts(port_, 100)) return Status::ok();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return Status::error("kafka peer did not accept connections within " + std::to_string(timeout_s) + " s");
}

Status KafkaPeer::finish_start(double timeout_s) {
  if (pending_start_ <= 0) return Status::ok();
  auto deadline = deadline_after(timeout_s);
  int st = 0;
  for (;;) {
    pid_t w = waitpid(pending_start_, &st, WNOHANG);
    if (w == pending_start_) break;
    if (w < 0 && errno != EINTR) {
      pending_start_ = -1;
      return Status::ok();
    }
    if (Clock::now() > deadline) {
      ::kill(pending_start_, SIGKILL);
      waitpid(pending_start_, &st, 0);
      pending_start_ = -1;
      return Status::error("kafka-peer start did not return");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pending_start_ = -1;
  if (decode(st) != 0) return Status::error("kafka-peer start failed:\n" + log_tail());
  return Status::ok();
}

void KafkaPeer::kill9() {
  (void)run_command({script_, "kill9", dir_}, 60, log_path_);
  if (pending_start_ > 0) (void)finish_start(60);
}

Status KafkaPeer::stop(double timeout_s) {
  if (pending_start_ > 0) (void)finish_start(timeout_s);
  if (!running()) return Status::ok();
  auto r = run_command({script_, "stop", dir_}, timeout_s + 15, log_path_);
  if (!r) return r.status();
  if (r->exit_code != 0) {
    if (running()) kill9();
    return Status::error("kafka-peer stop failed (exit " + std::to_string(r->exit_code) + "):\n" + log_tail(800));
  }
  return Status::ok();
}

std::string KafkaPeer::log_tail(size_t max_chars) const {
  std::string s = file_tail(log_path_, max_chars / 2);
  std::string k = file_tail(dir_ + "/kafka.log", max_chars / 2);
  if (!k.empty()) s += (s.empty() ? "" : "\n") + std::string("kafka.log: ") + k;
  return s;
}

}  // namespace spool::bench
