// `spool cluster describe` against a running broker through client::Admin:
// one Metadata round trip, printed by cluster_format.h (table or JSON).
// `spool cluster elect-leaders`: cluster_elect.h.
// Returns 0 when the broker answered, 1 when it could not be reached or
// failed, 2 for bad arguments.
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace CLI {
class App;
}

namespace spool::cli {

void configure_cluster(CLI::App& app, CliArgs& args);
int run_cluster_command(const ClusterArgs& args);
int run_cluster_command(const ClusterArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
