#include "cli/admin_connect.h"

#include "client/host_port.h"

namespace spool::cli {
namespace {

std::shared_ptr<const client::ClientSecurity>& command_security() {
  static std::shared_ptr<const client::ClientSecurity> security;
  return security;
}

}  // namespace

void set_command_security(std::shared_ptr<const client::ClientSecurity> security) {
  command_security() = std::move(security);
}

Result<std::unique_ptr<client::Admin>> open_admin(const std::string& bootstrap_server, int timeout_ms) {
  auto hp = client::parse_host_port(bootstrap_server);
  if (!hp) return hp.status();
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
