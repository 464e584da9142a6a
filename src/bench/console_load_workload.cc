// find_console_tools and time_console_loads (operability_workloads.h): the
// web console in headless Chromium, through tests/console/console_load_time.js.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/kafka_peer.h"
#include "bench/operability_workloads.h"

namespace spool::bench {
namespace {

constexpr const char* kScript = "tests/console/console_load_time.js";
constexpr const char* kChromium = "/usr/bin/chromium";  // tests/console/chromium.js launches this one
constexpr double kSetupTimeoutS = 60;                   // the browser's start and the untimed load
constexpr double kLoadTimeoutS = 60;                    // per timed load

bool executable_file(const std::string& p) {
  struct stat st{};
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && executable_file(dir + "/" + name)) return dir + "/" + name;
  return "";
}

}  // namespace

Result<ConsoleTools> find_console_tools(const std::string& exe) {
  ConsoleTools t;
  t.node = find_on_path("node");
  if (t.node.empty()) return Status::error("no node on $PATH (scripts/install-deps installs nodejs)");
  auto script = locate_repo_script("", "the console script", "SPOOL_CONSOLE_LOAD_SCRIPT", kScript, exe);
  if (!script) return script.status();
  t.script = *script;
  const auto modules = std::filesystem::path(t.script).parent_path() / "node_modules" / "playwright-core";
  std::error_code ec;
  if (!std::filesystem::is_directory(modules, ec))
    return Status::error("no " + modules.string() + " (scripts/install-deps runs npm ci in tests/console)");
  if (!executable_file(kChromium))
    return Status::error(std::string("no ") + kChromium + " (Debian's chromium package, scripts/install-deps)");
  return t;
}

Result<std::vector<ConsoleLoad>> time_console_loads(const ConsoleTools& tools, int admin_port,
                                                    const std::string& topic_prefix, int partitions, int loads,
                                                    const std::string& log_path) {
  auto run = run_command({tools.node, tools.script, "--url", "http://127.0.0.1:" + std::to_string(admin_port),
                          "--topic-prefix", topic_prefix, "--partitions", std::to_string(partitions), "--loads",
                          std::to_string(loads)},
                         kSetupTimeoutS + kLoadTimeoutS * loads, log_path);
  if (!run) return run.status();
  std::vector<ConsoleLoad> out;
  std::string failure;
  std::istringstream lines(run->out);
  std::string line;
  while (std::getline(lines, line)) {
    auto ev = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (ev.is_discarded() || !ev.is_object() || !ev.contains("event")) continue;
    if (ev["event"] == "failed") {
      failure = ev.value("error", std::string("no reason given"));
      continue;
    }
    if (ev["event"] != "load") continue;
    ConsoleLoad l;
    l.table_ms = ev.value("table_ms", 0.0);
    l.dom_content_loaded_ms = ev.value("dom_content_loaded_ms", 0.0);
    l.load_ms = ev.value("load_ms", 0.0);
    if (!(l.table_ms > 0 && l.dom_content_loaded_ms > 0 && l.load_ms > 0))
      return Status::error(tools.script + ": a load without positive times: " + line);
    out.push_back(l);
  }
  if (run->timed_out) return Status::error(tools.script + " timed out; its log: " + log_path);
  if (run->exit_code != 0 || !failure.empty())
    return Status::error(tools.script + " failed (exit " + std::to_string(run->exit_code) +
                         "): " + (failure.empty() ? "see " + log_path : failure));
  if (static_cast<int>(out.size()) != loads)
    return Status::error(tools.script + " timed " + std::to_string(out.size()) + " of " + std::to_string(loads) +
                         " loads");
  return out;
}

}  // namespace spool::bench
