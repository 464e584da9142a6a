// `spool config describe|alter` (kafka-configs.sh for brokers) through
// client::Admin:
//   describe --broker N | --broker-defaults | --broker-logger N [--all]
//            DescribeConfigs (with synonyms) of BROKER "N", BROKER "" or
//            BROKER_LOGGER "N"; without --all only the dynamic entries.
//   alter    (--broker N | --broker-defaults | --broker-logger N)
//            [--add-config k=v,k2=[a,b]] [--delete-config k,k2]
//            IncrementalAlterConfigs SET / DELETE of those keys.
// As Kafka's admin client does (and client::Admin routes it), a request
// naming broker N goes to broker N (its address from the bootstrap broker's
// Metadata); the defaults go to the bootstrap broker. Output: config_format.h (table or JSON).
// Returns 0 when the broker answered without error, 1 when it could not be
// reached or answered an error (printed with its Kafka name), 2 for bad
// arguments.
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace CLI {
class App;
}

namespace spool::cli {

void configure_config(CLI::App& app, CliArgs& args);
int run_config_command(const ConfigArgs& args);
int run_config_command(const ConfigArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
