// `spool topic reassign`, in the style of Kafka's kafka-reassign-partitions.sh:
//   --generate --topics-to-move-json-file F --broker-list 0,1,2 [--disable-rack-aware]
//       prints the current assignment and a balanced proposal (reassign_plan.h);
//   --execute --reassignment-json-file F [--throttle BYTES_PER_S]
//       prints the current assignment (to roll back with), sets the
//       replication throttles (the topics' leader/follower throttled replicas,
//       and leader/follower.replication.throttled.rate on every broker of a
//       moving partition), then starts the reassignment on the controller;
//   --verify --reassignment-json-file F [--preserve-throttles]
//       each partition's state, with a progress bar for the ones still
//       moving (the new replicas' size against the leader's, DescribeLogDirs);
//       once every one is done, removes the throttles from every broker and
//       the plan's topics;
//   --cancel --reassignment-json-file F [--preserve-throttles]
//       cancels the plan's ongoing reassignments and removes the throttles;
//   --list   the ongoing reassignments.
// Output as Kafka's tool prints it (table), or JSON with --output json.
// Exit 0 when the step ran (as Kafka's tool, also while moves are still in
// progress; JSON says "complete"), 1 when a request failed or a partition
// was refused, 2 for bad arguments or files.
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"
#include "client/admin/admin.h"

namespace CLI {
class App;
}

namespace spool::cli {

void configure_topic_reassign(CLI::App* topic, CliArgs& args);
// Every request goes through `admin` (the reassignment ones to the
// controller, the broker throttles and log-dir sizes to each broker).
int run_topic_reassign(client::Admin& admin, const TopicArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
