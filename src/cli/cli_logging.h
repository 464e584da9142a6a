// Where the `spool` subcommands other than `broker` log. Their results go to
// stdout (tables, JSON, records, the bench report's path), so the client
// library's log (a refused connection, a retry, a shutdown with requests in
// flight) goes to stderr: warnings and up, unless SPOOL_CLI_LOG names another
// spdlog level (e.g. info or debug, to see the client's steps). Called once
// by main() before such a command runs; `spool broker` sets up its own log
// (util/logging.h).
#pragma once

namespace spool::cli {

void log_to_stderr();

}  // namespace spool::cli
