#include "cli/cluster_command.h"

#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/admin_connect.h"
#include "cli/client_options.h"
#include "cli/cluster_elect.h"
#include "cli/cluster_format.h"
#include "cli/metadata_fetch.h"
#include "client/host_port.h"

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
  CLI::App* elect = cluster->add_subcommand(
      "elect-leaders", "Leader elections through the controller, as kafka-leader-election.sh (ElectLeaders)");
  add_client_options(elect, args.cluster);
  auto* preferred = elect->add_flag("--preferred", args.cluster.preferred, "Elect each partition's preferred replica");
  auto* unclean = elect->add_flag("--unclean", args.cluster.unclean,
                                  "Elect a live replica for partitions without a live leader, even one not in sync "
                                  "(may lose data)");
  preferred->excludes(unclean);
  auto* topic = elect->add_option("--topic", args.cluster.topic, "Only this topic");
  elect->add_option("--partition", args.cluster.partitions, "Only these partitions of --topic (repeatable)")
      ->needs(topic)
      ->check(CLI::NonNegativeNumber);
  auto* all = elect->add_flag("--all-topic-partitions", args.cluster.all_topic_partitions, "Every partition");
  all->excludes(topic);
  elect->callback([&args] {
    if (!args.cluster.preferred && !args.cluster.unclean)
      throw CLI::ValidationError("elect-leaders", "one of --preferred or --unclean is required");
    if (args.cluster.topic.empty() && !args.cluster.all_topic_partitions)
      throw CLI::ValidationError("elect-leaders", "one of --topic or --all-topic-partitions is required");
    args.command = "cluster";
    args.cluster.action = "elect-leaders";
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
  auto admin = open_admin(a.bootstrap_server, a.timeout_ms);
  if (!admin) {
    err << who << admin.status().message() << "\n";
    return kExitFailure;
  }
  auto meta = fetch_cluster_metadata(**admin, "");
  if (!meta) {
    err << who << meta.status().message() << "\n";
    return kExitFailure;
  }
  if (a.action == "elect-leaders") return run_elect_leaders(a, **admin, *meta, out, err);
  out << format_cluster_describe(*meta, a.output);
  return kExitOk;
}

}  // namespace spool::cli
