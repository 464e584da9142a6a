// `spool consume TOPIC...` or `spool consume --include REGEX --group G`:
// prints records with the native consumer (client/consumer/consumer.h), like
// kafka-console-consumer.sh and kcat -C.
//   --include REGEX      instead of TOPIC...: every topic whose whole name
//                        matches (ECMAScript regex), now or created later
//                        (seen at the next metadata refresh,
//                        metadata.max.age.ms); needs --group, as
//                        subscription by pattern is group management
//   --group G            read as a member of group G (subscribe): positions
//                        start at the group's committed offsets, and the
//                        positions of what was printed are committed on exit
//                        (enable.auto.commit, as the console consumer);
//   --partition N        (repeatable) read these partitions of every topic,
//                        without a group; without --group and --partition
//                        every partition of the topics is read, without a
//                        group (the console consumer would make up a group)
//   --from-beginning     start at the log start when there is no committed
//                        offset (auto.offset.reset=earliest; the default is
//                        latest: only new records)
//   --offset N|-N|earliest|latest  start every partition at offset N, or N
//                        before its end (not with --group)
//   --from-time T        start at the first record with a timestamp >= T
//                        (ms since the epoch; ListOffsets); partitions
//                        without one start at their end (not with --group)
//   --max-messages N     exit after N records
//   --timeout-ms T       exit when no record arrived for T ms (exit code 0,
//                        as the console consumer); also bounds the wait for
//                        the topics' metadata (default 60000)
//   --isolation-level read_committed|read_uncommitted
//   --format text|json and --print-key, --print-headers, --print-partition,
//   --print-offset, --print-timestamp (cli/consume_format.h has the layout)
//   --property k=v       any consumer key (repeatable; wins over the file
//                        and over what the options above set)
//   --command-config F   Kafka client properties (security, any consumer key)
//   --bootstrap-server
// On exit "Processed a total of N messages" goes to stderr. Exit codes:
// 0 done (max messages, timeout, or interrupted), 1 an error (unreachable
// broker or unknown topic after the wait, a consumer error), 2 bad
// arguments or consumer settings.
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace CLI {
class App;
}

namespace spool::cli {

void configure_consume(CLI::App& app, CliArgs& args);

int run_consume_command(const ConsumeArgs& args);
int run_consume_command(const ConsumeArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
