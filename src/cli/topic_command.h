// `spool topic create|list|describe|delete|add-partitions|delete-records|alter-config|reassign`
// against a running cluster through client::Admin (which routes each
// request): Metadata (+ DescribeConfigs) for list/describe, CreateTopics,
// DeleteTopics, CreatePartitions, DeleteRecords and IncrementalAlterConfigs
// for the others; `reassign` is topic_reassign.h. Prints tables or JSON on
// stdout, errors (with Kafka error names) on stderr; returns 0, 1
// (operation failed) or 2 (bad args).
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace spool::cli {

int run_topic_command(const TopicArgs& args);
int run_topic_command(const TopicArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
