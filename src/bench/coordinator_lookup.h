// Where a cluster's coordinators are, as a client finds them, for the
// coordinator workloads (coordinator_workloads.h):
//   find_coordinator: FindCoordinator v1 (key type 0: group, 1: transaction)
//     on a blocking socket of its own, asked of each node in turn; librdkafka
//     has no public call for it. Spool and Kafka 4.4 both answer v1.
//   wait_full_isr: Metadata (librdkafka) until every partition of the given
//     topics has a leader and an ISR of `replicas` brokers.
//   wait_topics_on_every_node: Metadata asked of each node alone until it
//     lists the topics with a leader for each partition (a consumer whose
//     first Metadata comes from a broker that does not list its topic yet
//     joins with nothing assigned and asks again only minutes later).
//   ensure_coordinator_topics: has the cluster create __consumer_offsets and
//     __transaction_state (FindCoordinator does) and waits for both to be
//     whole (every partition led, ISR full).
// Plain functions, no state; safe from any thread. Failure: an error Status
// naming what was not answered or not ready in time; nothing throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace spool::bench {

constexpr int8_t kGroupCoordinator = 0;
constexpr int8_t kTransactionCoordinator = 1;

// The broker id named coordinator of `key`, asking `nodes` (host:port) in
// turn until one answers without error or `timeout_s` has passed.
Result<int32_t> find_coordinator(const std::vector<std::string>& nodes, const std::string& key, int8_t key_type,
                                 double timeout_s);

Status wait_full_isr(const std::string& bootstrap, const std::vector<std::string>& topics, int replicas,
                     double timeout_s);

Status wait_topics_on_every_node(const std::vector<std::string>& nodes, const std::vector<std::string>& topics,
                                 int partitions, double timeout_s);

Status ensure_coordinator_topics(const std::vector<std::string>& nodes, int replicas, double timeout_s);

}  // namespace spool::bench
