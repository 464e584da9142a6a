// `spool group list|describe|delete|reset-offsets|delete-offsets`: the
// consumer group admin commands of kafka-consumer-groups.sh, against a
// running broker through GroupAdmin (FindCoordinator, ListGroups,
// DescribeGroups, OffsetFetch, ListOffsets, OffsetCommit, DeleteGroups,
// OffsetDelete). Tables or JSON on stdout, errors (Kafka error names plus a
// hint) on stderr; returns 0, 1 (operation failed) or 2 (bad arguments).
// reset-offsets is a dry run unless --execute is given.
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace spool::cli {

int run_group_command(const GroupArgs& args);
int run_group_command(const GroupArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
