// `spool topic create|list|describe|delete|add-partitions|delete-records|alter-config`
// against a running broker through BlockingClient: Metadata (+ DescribeConfigs)
// for list/describe, CreateTopics, DeleteTopics, CreatePartitions and
// DeleteRecords for the others. Prints tables or JSON on stdout, errors (with Kafka
// error names) on stderr; returns 0, 1 (operation failed) or 2 (bad args).
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace spool::cli {

int run_topic_command(const TopicArgs& args);
int run_topic_command(const TopicArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
