#include "cli/broker_command.h"

#include <spdlog/spdlog.h>

#include <iostream>

#include "broker/admin_api/admin_listener.h"
#include "broker/run.h"
#include "config/broker_config.h"
#include "security/authorizer_config.h"
#include "security/sasl_listener.h"
#include "security/tls_context.h"
#include "util/logging.h"

namespace spool::cli {

int run_broker_command(const BrokerArgs& args) {
  std::vector<std::string> warnings;
  auto cfg = config::BrokerConfig::load(args.config_file, args.overrides, &warnings);
  if (!cfg) {
    std::cerr << "spool broker: " << cfg.status().message() << "\n";
    return kExitUsage;
  }
  if (Status sasl = security::check_sasl_listeners(*cfg); !sasl) {
    std::cerr << "spool broker: refusing to start: " << sasl.message() << "\n";
    return kExitUsage;
  }
  if (Status tls = security::check_tls_listeners(*cfg); !tls) {
    std::cerr << "spool broker: refusing to start: " << tls.message() << "\n";
    return kExitUsage;
  }
  if (auto authz = security::authorizer_options(*cfg); !authz) {
    std::cerr << "spool broker: refusing to start: " << authz.status().message() << "\n";
    return kExitUsage;
  }
  if (auto admin = broker::admin_listener_options(*cfg); !admin) {
    std::cerr << "spool broker: refusing to start: " << admin.status().message() << "\n";
    return kExitUsage;
  }
  init_logging(cfg->log_level(), cfg->get("log.format"));
  if (!warnings.empty()) {
    // One line naming every key, so a full server.properties does not flood the log.
    std::string keys;
    for (const std::string& k : cfg->unacted_keys()) keys += (keys.empty() ? "" : ", ") + k;
    spdlog::warn("config keys accepted but not acted on by Spool yet: {}", keys);
  }
  return broker::run_broker(*cfg);
}

}  // namespace spool::cli
