// `spool user scram set|delete|describe`: SCRAM credentials through the
// Admin API, as kafka-configs.sh --entity-type users --add-config
// 'SCRAM-SHA-256=[iterations=N,password=P]' does. `set` salts (32 random
// bytes) and derives the SaltedPassword here, so the password never
// travels (AlterUserScramCredentials); `delete` removes one mechanism's
// credential; `describe` lists mechanisms and iterations
// (DescribeUserScramCredentials), every user when none is named. Tables or
// JSON on stdout, errors (Kafka error names) on stderr; returns 0, 1
// (operation failed) or 2 (bad arguments).
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace CLI {
class App;
}

namespace spool::cli {

// Declares `spool user ...` on app (called by configure_app).
void configure_user(CLI::App& app, CliArgs& args);

int run_user_command(const UserArgs& args);
int run_user_command(const UserArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
