#include "util/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace spool {
namespace {

std::string_view level_name(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace: return "trace";
    case spdlog::level::debug: return "debug";
    case spdlog::level::info: return "info";
    case spdlog::level::warn: return "warn";
    case spdlog::level::err: return "error";
    case spdlog::level::critical: return "critical";
    default: return "off";
  }
}

// The syslog priority journald reads from a `<N>` line prefix (sd-daemon.h).
int syslog_priority(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::critical: return 2;  // SD_CRIT
    case spdlog::level::err: return 3;       // SD_ERR
    case spdlog::level::warn: return 4;      // SD_WARNING
    case spdlog::level::info: return 6;      // SD_INFO
    default: return 7;                       // SD_DEBUG: debug, trace
  }
}

// Pattern flag %* : the line's syslog priority digit.
class PriorityFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    dest.push_back(static_cast<char>('0' + syslog_priority(msg.level)));
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<PriorityFlag>(); }
};

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    using namespace std::chrono;
    const auto since_epoch = msg.time.time_since_epoch();
    const std::time_t secs = duration_cast<seconds>(since_epoch).count();
    const auto millis = duration_cast<milliseconds>(since_epoch).count() % 1000;
    std::tm utc{};
    gmtime_r(&secs, &utc);
    char ts[32];
    std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &utc);
    const std::string text =
        nlohmann::json(std::string(msg.payload.data(), msg.payload.size()))
            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    fmt::format_to(std::back_inserter(dest), R"({{"ts":"{}.{:03}Z","level":"{}","thread":{},"msg":{}}})" "\n", ts,
                   millis, level_name(msg.level), msg.thread_id, text);
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};

// systemd sets JOURNAL_STREAM=<device>:<inode> of the stream it connected to
// journald; it is stdout's only if stdout is still that stream (a child may
// inherit the variable with stdout redirected elsewhere).
bool stdout_is_journal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (stream == nullptr) return false;
  unsigned long long dev = 0, ino = 0;
  if (std::sscanf(stream, "%llu:%llu", &dev, &ino) != 2) return false;
  struct stat st {};
  if (fstat(STDOUT_FILENO, &st) != 0) return false;
  return static_cast<unsigned long long>(st.st_dev) == dev && static_cast<unsigned long long>(st.st_ino) == ino;
}

}  // namespace

void init_logging(std::string_view level, std::string_view format) {
  std::shared_ptr<spdlog::logger> logger;
  if (format == "json") {
    logger = spdlog::stdout_logger_mt("spool");
    logger->set_formatter(std::make_unique<JsonFormatter>());
  } else if (stdout_is_journal()) {
    logger = spdlog::stdout_logger_mt("spool");
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<PriorityFlag>('*').set_pattern("<%*>%l [%t] %v");
    logger->set_formatter(std::move(formatter));
  } else {
    logger = spdlog::stdout_color_mt("spool");  // colours only on a terminal
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%t] %v");
  }
  spdlog::set_default_logger(logger);
  auto lvl = spdlog::level::from_str(std::string(level));
  if (lvl == spdlog::level::off && level != "off") lvl = spdlog::level::info;
  spdlog::set_level(lvl);
}

}  // namespace spool
