#include "cli/cluster_command.h"

#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/client_options.h"
#include "cli/cluster_format.h"
#include "cli/metadata_fetch.h"
#include "client/blocking_client.h"

namespace spool::cli {

void configure_cluster(CLI::App& app, CliArgs& args) {
  CLI::App* cluster = app.add_subcommand("cluster", "Describe the cluster");
  cluster->require_subcommand(1);
  CLI::App* describe =
      cluster->add_subcommand("describe", "Brokers, the controller, under-replicated and offline partitions");
  add_client_options(describe, args.cluster);
  describe->callback([&args] {
    args.command = "cluster";
    args.cluster.action = "describe";
  });
}

int run_cluster_command(const ClusterArgs& a) { return run_cluster_command(a, std::cout, std::cerr); }

int run_cluster_command(const ClusterArgs& a, std::ostream& out, std::ostream& err) {
  const std::string who = "spool cluster " + a.action + ": ";
  auto addr = client::parse_host_port(a.bootstrap_server);
  if (!addr) {
    err << who << "--bootstrap-server: " << addr.status().message() << "\n";
    return kExitUsage;
  }
  auto conn = client::BlockingClient::connect(addr->first, addr->second, a.timeout_ms);
  if (!conn) {
    err << who << conn.status().message() << "\n";
    return kExitFailure;
  }
  auto meta = fetch_cluster_metadata(*conn, "");
  if (!meta) {
    err << who << meta.status().message() << "\n";
    return kExitFailure;
  }
  out << format_cluster_describe(*meta, a.output);
  return kExitOk;
}

}  // namespace spool::cli
