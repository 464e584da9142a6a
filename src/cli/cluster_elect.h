// `spool cluster elect-leaders`, as Kafka's kafka-leader-election.sh: one
// ElectLeaders (v1+, PREFERRED or UNCLEAN) sent to the controller named by
// the bootstrap broker's Metadata, for --topic [--partition ...] or every
// partition (--all-topic-partitions); each partition's outcome is printed
// (table or JSON). Exit 0 when every partition has its leader (elected now,
// or ELECTION_NOT_NEEDED), 1 when any failed or the controller could not be
// reached, 2 for a topic or partition the cluster does not have.
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"
#include "cli/cluster_format.h"
#include "client/admin/admin.h"

namespace spool::cli {

// `cluster`: the Metadata `admin` just fetched (the topic's partitions, the
// controller the output names).
int run_elect_leaders(const ClusterArgs& args, client::Admin& admin, const ClusterInfo& cluster, std::ostream& out,
                      std::ostream& err);

}  // namespace spool::cli
