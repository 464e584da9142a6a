// Client memory per 1,000 idle partitions (the client family's RSS rows):
// how much resident memory a producer holds once it has metadata and one
// batch's worth of state for N partitions, librdkafka against the native
// producer.
//
// Measured in a child process per client (`spool bench --client-rss-probe
// <client>`, a hidden option), because an in-process delta is swamped by
// the bench's own heap (free lists left by earlier workloads absorb the
// client's allocations). The child reads its VmRSS, creates the producer
// with its library's defaults plus acks=1 and linger.ms=5 (and
// enable.idempotence=false on both, librdkafka's default), waits for the
// topic's metadata, sends one 100 B record to each of the N partitions,
// flushes, idles 1 s, reads VmRSS again and prints
// "rss_delta_kb=<after-before> rss_before_kb=<..> rss_after_kb=<..>".
// The delta includes the client library's one-time initialization (its
// threads' stacks, global tables) as well as the per-partition state.
// Threading: blocking calls. Failure: Status with the child's exit code and
// output; nothing throws.
#pragma once

#include <cstdint>
#include <string>

#include "util/status.h"

namespace spool::bench {

struct Target;

struct ClientRss {
  double delta_KB = 0;   // KiB (/proc's kB) the producer added
  double before_KB = 0;  // the child before creating it
};

// Runs the probe for `client` ("librdkafka" | "native") in a child of
// `exe` against the existing `topic` of `t` (N partitions).
Result<ClientRss> run_client_rss(const std::string& exe, const Target& t, const std::string& client,
                                 const std::string& topic, int partitions, double timeout_s);

// The child's side (bench_command.cc calls it for --client-rss-probe):
// prints the line above on stdout; returns the process exit code.
int client_rss_probe_main(const std::string& client, const std::string& bootstrap, const std::string& topic,
                          int partitions);

}  // namespace spool::bench
