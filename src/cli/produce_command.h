// `spool produce TOPIC`: each line of stdin becomes a record, sent with the
// native producer (client/producer/producer.h), like kafka-console-producer.sh
// and kcat -P.
//   --key-separator S   split each line at the first S into key and value
//                       (a line without S is an error)
//   --header k=v        a header on every record (repeatable)
//   --partition N       every record to partition N (default: the partitioner)
//   --acks, --compression, --linger-ms, --idempotence / --no-idempotence
//   --transactional-id T  all of stdin in one transaction, committed at the
//                       end; on any failed line or record the records sent
//                       so far are flushed and the transaction is aborted
//                       (exit 1), so read_committed consumers see nothing
//   --property k=v      any producer key (repeatable; wins over the file)
//   --command-config F  Kafka client properties (security, or any producer key)
//   --bootstrap-server, --timeout-ms (the wait for the last answers)
// Nothing is printed on success. A record that fails is reported on stderr
// (its line number and the error); the exit code is then 1. Bad arguments
// or producer settings exit with 2 before anything is sent.
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace CLI {
class App;
}

namespace spool::cli {

void configure_produce(CLI::App& app, CliArgs& args);

int run_produce_command(const ProduceArgs& args);
int run_produce_command(const ProduceArgs& args, std::istream& in, std::ostream& err);

}  // namespace spool::cli
