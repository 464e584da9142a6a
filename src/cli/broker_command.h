// `spool broker`: load the configuration, set up logging, run the broker
// until SIGTERM/SIGINT. A bad configuration prints the reason and exits 2
// before anything starts.
#pragma once

#include "cli/cli_args.h"

namespace spool::cli {

int run_broker_command(const BrokerArgs& args);

}  // namespace spool::cli
