// `spool quota describe|alter`: client quotas through the Admin API
// (DescribeClientQuotas, AlterClientQuotas), as kafka-configs.sh
// --entity-type users|clients [--entity-name N | --entity-default] does.
//   describe [--user U | --user-default] [--client-id C | --client-id-default] [--strict]
//     the entities matching (no option: every entity) with their quotas;
//   alter (--user U | --user-default) and/or (--client-id C | --client-id-default)
//     [--add k=v,...] [--delete k,...] [--validate-only]
// Keys are Kafka's: producer_byte_rate, consumer_byte_rate,
// request_percentage. Tables or JSON on stdout, errors (Kafka error names)
// on stderr; returns 0, 1 (operation failed) or 2 (bad arguments).
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace CLI {
class App;
}

namespace spool::cli {

// Declares `spool quota ...` on app (called by configure_app).
void configure_quota(CLI::App& app, CliArgs& args);

int run_quota_command(const QuotaArgs& args);
int run_quota_command(const QuotaArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
