// `spool topic create|list|describe|delete` against a running broker through
// BlockingClient: Metadata for list/describe, CreateTopics and DeleteTopics
// for create/delete. Prints tables or JSON on stdout, errors (with Kafka
// error names) on stderr; returns 0, 1 (operation failed) or 2 (bad args).
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace spool::cli {

int run_topic_command(const TopicArgs& args);
int run_topic_command(const TopicArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
