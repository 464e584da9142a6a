// render_process_metrics (admin_api.h): Prometheus' standard process
// collector names, read from /proc/self at scrape time.
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "broker/admin_api/admin_api.h"

namespace spool::broker {
namespace {

// The fields of /proc/self/stat after the command name (field 3 onward).
std::vector<std::string> stat_fields() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  std::getline(in, line);
  const size_t close = line.rfind(')');
  std::vector<std::string> out;
  if (close == std::string::npos) return out;
  std::istringstream rest(line.substr(close + 2));
  for (std::string f; rest >> f;) out.push_back(f);
  return out;
}

double boot_time_seconds() {
  std::ifstream in("/proc/stat");
  for (std::string key; in >> key;) {
    if (key == "btime") {
      double v = 0;
      in >> v;
      return v;
    }
    in.ignore(4096, '\n');
  }
  return 0;
}

}  // namespace

void render_process_metrics(util::PromText& out) {
  const auto f = stat_fields();  // f[0] = state (field 3), so field N is f[N - 3]
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  if (f.size() > 21) {
    const double cpu = (std::stod(f[11]) + std::stod(f[12])) / ticks;  // utime (14) + stime (15)
    out.family("process_cpu_seconds_total", "counter", "User and system CPU time, in seconds");
    out.sample("process_cpu_seconds_total", {}, cpu);
    out.family("process_resident_memory_bytes", "gauge", "Resident memory, in bytes");
    out.sample("process_resident_memory_bytes", {}, std::stod(f[21]) * page);  // rss (24)
    out.family("process_virtual_memory_bytes", "gauge", "Virtual memory, in bytes");
    out.sample("process_virtual_memory_bytes", {}, std::stod(f[20]));  // vsize (23)
    out.family("process_start_time_seconds", "gauge", "Start time since the Unix epoch, in seconds");
    out.sample("process_start_time_seconds", {}, boot_time_seconds() + std::stod(f[19]) / ticks);  // starttime (22)
  }
  std::error_code ec;
  size_t fds = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec))
    ++fds;
  out.family("process_open_fds", "gauge", "Open file descriptors");
  out.sample("process_open_fds", {}, static_cast<double>(fds));
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    out.family("process_max_fds", "gauge", "The file descriptor limit");
    out.sample("process_max_fds", {}, static_cast<double>(lim.rlim_cur));
  }
}

}  // namespace spool::broker
