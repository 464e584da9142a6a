// The options every broker-talking subcommand shares: --bootstrap-server,
// --output table|json, --timeout-ms. `Args` is any argument struct with
// bootstrap_server, output (OutputFormat) and timeout_ms members.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>

#include "cli/cli_args.h"

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
}

}  // namespace spool::cli
