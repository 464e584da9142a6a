// Logging setup of `spool broker`: one spdlog logger for the whole process,
// written to stdout (a service's log: journald, or the file a test redirects
// stdout and stderr into). Call init_logging() once at start, before other
// threads log; modules use spdlog's free functions (spdlog::info, ...).
// Thread-safe after init; every line is flushed as it is written.
//
// Formats (the broker key log.format):
//   text  `2026-12-06T17:25:01.960 info [123] message`, local time; ANSI
//         colours only when stdout is a terminal. When stdout is journald's
//         stream (JOURNAL_STREAM names stdout's device:inode, as systemd sets
//         it), the timestamp is left to journald and each line starts with
//         its syslog priority instead: `<6>info [123] message` (sd-daemon.h's
//         SD_ERR=3, SD_WARNING=4, SD_INFO=6, SD_DEBUG=7 for debug and trace),
//         which journald records as the line's level.
//   json  one object per line: {"ts":"2026-12-06T17:25:01.960Z","level":"info",
//         "thread":123,"msg":"..."}; ts in UTC, level one of trace, debug,
//         info, warn, error, critical; msg JSON-escaped (invalid UTF-8 becomes
//         U+FFFD).
// The other subcommands log to stderr instead (cli/cli_logging.h).
#pragma once

#include <string_view>

namespace spool {

// level: trace|debug|info|warn|error|off; unknown values fall back to info.
// format: text|json; unknown values fall back to text (the config validator
// refuses them before this is called).
void init_logging(std::string_view level, std::string_view format = "text");

}  // namespace spool
