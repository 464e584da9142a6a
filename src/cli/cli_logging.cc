#include "cli/cli_logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

namespace spool::cli {

void log_to_stderr() {
  static const bool done = [] {
    auto logger = spdlog::stderr_logger_mt("spool-cli");
    const char* level = std::getenv("SPOOL_CLI_LOG");
    logger->set_level(level != nullptr ? spdlog::level::from_str(level) : spdlog::level::warn);
    spdlog::set_default_logger(logger);
    return true;
  }();
  (void)done;
}

}  // namespace spool::cli
