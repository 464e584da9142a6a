// The `spool` executable: parse arguments (CLI11), then run the subcommand.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "cli/acl_command.h"
#include "cli/bench_command.h"
#include "cli/broker_command.h"
#include "cli/cli_args.h"
#include "cli/cli_logging.h"
#include "cli/cluster_command.h"
#include "cli/config_command.h"
#include "cli/consume_command.h"
#include "cli/group_command.h"
#include "cli/produce_command.h"
#include "cli/quota_command.h"
#include "cli/topic_command.h"
#include "cli/txn_command.h"
#include "cli/user_command.h"

namespace {

int run_command(const spool::cli::CliArgs& args) {
  if (args.command == "broker") return spool::cli::run_broker_command(args.broker);
  if (args.command == "topic") return spool::cli::run_topic_command(args.topic);
  if (args.command == "group") return spool::cli::run_group_command(args.group);
  if (args.command == "txn") return spool::cli::run_txn_command(args.txn);
  if (args.command == "cluster") return spool::cli::run_cluster_command(args.cluster);
  if (args.command == "config") return spool::cli::run_config_command(args.config);
  if (args.command == "user") return spool::cli::run_user_command(args.user);
  if (args.command == "acl") return spool::cli::run_acl_command(args.acl);
  if (args.command == "quota") return spool::cli::run_quota_command(args.quota);
  if (args.command == "produce") return spool::cli::run_produce_command(args.produce);
  if (args.command == "consume") return spool::cli::run_consume_command(args.consume);
  if (args.command == "bench") return spool::cli::run_bench_command(args.bench);
  return spool::cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"spool"};
  spool::cli::CliArgs args;
  spool::cli::configure_app(app, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : spool::cli::kExitUsage;
  }
  if (args.command != "broker") spool::cli::log_to_stderr();
  try {
    return run_command(args);
  } catch (const std::exception& e) {
    std::cerr << "spool: " << e.what() << "\n";
    return spool::cli::kExitFailure;
  }
}
