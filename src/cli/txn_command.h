// `spool txn list|describe`: the transaction admin commands of
// kafka-transactions.sh against a running cluster, through client::Admin.
// list sends ListTransactions to every broker (state and producer id
// filters); describe finds each id's coordinator (FindCoordinator, key type
// TRANSACTION) and sends it DescribeTransactions. Tables or JSON on stdout, errors (Kafka error names)
// on stderr; returns 0, 1 (operation failed) or 2 (bad arguments).
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace CLI {
class App;
}

namespace spool::cli {

// Declares `spool txn ...` on app (called by configure_app).
void configure_txn(CLI::App& app, CliArgs& args);

int run_txn_command(const TxnArgs& args);
int run_txn_command(const TxnArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
