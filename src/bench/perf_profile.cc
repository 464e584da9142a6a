#include "bench/perf_profile.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace spool::bench {

Result<PerfRecording> PerfRecording::start(pid_t pid, const std::string& data_path) {
  std::vector<std::string> args = {"perf", "record", "-q", "-g", "-F", "999", "-p", std::to_string(pid),
                                   "-o", data_path};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t child = fork();
  if (child < 0) return Status::error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      dup2(devnull, STDIN_FILENO);
      dup2(devnull, STDOUT_FILENO);
      dup2(devnull, STDERR_FILENO);
    }
    execvp("perf", argv.data());
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int st = 0;
  if (waitpid(child, &st, WNOHANG) == child)
    return Status::error("perf record exited at once (not installed or not permitted: perf_event_paranoid)");
  return PerfRecording(child, data_path);
}

PerfRecording::~PerfRecording() { (void)stop(); }

Status PerfRecording::stop() {
  if (perf_pid_ <= 0) return Status::ok();
  ::kill(perf_pid_, SIGINT);
  int st = 0;
  for (int i = 0; i < 300; ++i) {
    if (waitpid(perf_pid_, &st, WNOHANG) == perf_pid_) {
      perf_pid_ = -1;
      return Status::ok();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(perf_pid_, SIGKILL);
  waitpid(perf_pid_, &st, 0);
  perf_pid_ = -1;
  return Status::error("perf record did not stop on SIGINT");
}

Result<std::string> PerfRecording::stop_and_summarize(int top_n) {
  if (auto st = stop(); !st) return st;
  std::string cmd = "perf report -i '" + data_path_ +
                    "' --stdio --no-children --fields overhead,sym --percent-limit 0.5 2>/dev/null";
  std::string lines;
  int kept = 0;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, f)) {
      std::string line = buf;
      // Top-level entries only: "    12.34%  [.] symbol"; call-graph lines are indented further.
      auto pct = line.find('%');
      if (line.empty() || line[0] == '#' || pct == std::string::npos || pct > 12 || kept >= top_n) continue;
      if (line.find("[.]") == std::string::npos && line.find("[k]") == std::string::npos) continue;
      if (line.size() > 160) line = line.substr(0, 157) + "...\n";
      lines += line;
      ++kept;
    }
    pclose(f);
  }
  unlink(data_path_.c_str());
  if (kept == 0) return Status::error("perf recorded no samples of the broker");
  return "perf record -g -F 999 on the broker during one extra run; top symbols by self time "
         "([k] kernel, [.] user):\n\n```\n" + lines + "```";
}

}  // namespace spool::bench
