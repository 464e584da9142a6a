// The options every broker-talking subcommand shares: --bootstrap-server,
// --output table|json, --timeout-ms, and --command-config FILE (Kafka client
// properties: security.protocol, SASL and TLS settings; kafka-*.sh's option).
// `Args` is any argument struct with bootstrap_server, output (OutputFormat)
// and timeout_ms members. --command-config is read while the command line is
// parsed (a bad file is a usage error naming the key) and becomes the
// process's client security (cli/admin_connect.h: set_command_security),
// which every connection the command opens uses.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <string>

#include "cli/cli_args.h"
#include "cli/admin_connect.h"
#include "client/client_security.h"

namespace spool::cli {

template <class Args>
void add_client_options(CLI::App* sub, Args& t) {
  sub->add_option("--bootstrap-server,--bootstrap", t.bootstrap_server, "Broker address host:port")
      ->capture_default_str();
  static const std::map<std::string, OutputFormat> kFormats{{"table", OutputFormat::kTable},
                                                            {"json", OutputFormat::kJson}};
  sub->add_option("--output,-o", t.output, "Output format: table or json")
      ->transform(CLI::CheckedTransformer(kFormats, CLI::ignore_case));
  sub->add_option("--timeout-ms", t.timeout_ms, "Network and request timeout in ms")
      ->check(CLI::Range(1, 3600 * 1000))
      ->capture_default_str();
  sub->add_option_function<std::string>(
      "--command-config",
      [](const std::string& path) {
        auto security = client::load_client_security(path);
        if (!security) throw CLI::ValidationError(security.status().message());
        set_command_security(std::make_shared<const client::ClientSecurity>(std::move(*security)));
      },
      "Kafka client properties file: security.protocol, sasl.mechanism, sasl.jaas.config, ssl.*");
}

}  // namespace spool::cli
