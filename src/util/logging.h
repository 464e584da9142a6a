// Logging setup: one spdlog logger for the whole process, written to stderr.
// Call init_logging() once at start; modules use spdlog's free functions
// (spdlog::info, spdlog::warn, ...). Thread-safe after init.
#pragma once

#include <string_view>

namespace spool {

// level: trace|debug|info|warn|error|off; unknown values fall back to info.
void init_logging(std::string_view level);

}  // namespace spool
