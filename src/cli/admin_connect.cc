#include "cli/admin_connect.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

#include "client/host_port.h"

namespace spool::cli {
namespace {

std::shared_ptr<const client::ClientSecurity>& command_security() {
  static std::shared_ptr<const client::ClientSecurity> security;
  return security;
}

// stdout carries the command's output: the client's log (a refused
// connection, a retry) goes to stderr, warnings and up unless
// SPOOL_CLI_LOG names another level (e.g. debug, to see the client's steps).
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

}  // namespace

void set_command_security(std::shared_ptr<const client::ClientSecurity> security) {
  command_security() = std::move(security);
}

Result<std::unique_ptr<client::Admin>> open_admin(const std::string& bootstrap_server, int timeout_ms) {
  auto hp = client::parse_host_port(bootstrap_server);
  if (!hp) return hp.status();
  log_to_stderr();
  client::AdminConfig config;
  config.bootstrap_servers = {bootstrap_server};
  config.client_id = "spool-cli";
  config.request_timeout_ms = timeout_ms;
  config.default_api_timeout_ms = timeout_ms;
  config.connect_timeout_ms = timeout_ms;
  config.security = command_security();
  return client::Admin::create(std::move(config));
}

}  // namespace spool::cli
