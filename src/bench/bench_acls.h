// The ACLs of the authorizer workload (security family of `spool bench`),
// created through librdkafka's admin API (CreateAcls in batches) by a super
// user, as an operator's tooling would. Of `total` bindings (host "*",
// ALLOW), the last ones are the grants the producer needs, one per topic it
// writes to (the bench's warm-up and measured topics):
//   LITERAL topic <topic>, <principal>, WRITE (which implies DESCRIBE)
// and the others are on other topics and principals, in turn:
//   i % 3 == 0  LITERAL  topic "acl-other-<i>"   User:user-<i % 1000>  WRITE
//   i % 3 == 1  PREFIXED topic "bench-acl-<i>-"  User:user-<i % 1000>  READ
//               (a prefix sharing "bench-" with the bench's topics)
//   i % 3 == 2  LITERAL  topic "acl-other-<i>"   <principal>           WRITE
// so neither the resource type, nor the principal, nor the "bench-" start of
// the name singles the grant out.
// check_produce_refused proves the broker enforces them before a run.
// Threading: blocks the caller. Failure: an error Status naming the first
// binding the broker refused, or the admin error; nothing throws.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench/progress.h"
#include "bench/workloads.h"
#include "util/status.h"

namespace spool::bench {

// Creates the `total` bindings (grants for `topics` included) in CreateAcls
// requests of `batch` each through `bootstrap` (a super user's PLAINTEXT
// listener).
Status create_bench_acls(const std::string& bootstrap, const std::string& principal,
                         const std::vector<std::string>& topics, int total, int batch, Progress* progress);

// DescribeAcls (any resource, pattern, principal, operation): how many
// bindings the broker lists.
Result<size_t> count_acls(const std::string& bootstrap, int timeout_ms);

// Polls count_acls until it lists at least `total` (ACLs apply
// asynchronously on Kafka, through the controller's metadata log), for at
// most `timeout_s`.
Status wait_acls_listed(const std::string& bootstrap, size_t total, double timeout_s, Progress* progress);

// That the authorizer checks: creates `topic` (t.create_topic), produces
// one message to it over `t` (the producer's listener and principal), which
// no ACL grants, and expects TOPIC_AUTHORIZATION_FAILED; deletes the topic.
Status check_produce_refused(const Target& t, const std::string& topic);

}  // namespace spool::bench
