// The transaction and coordinator workloads of `spool bench --workloads
// cluster`, run against a ManagedCluster (cluster_process.h) through
// librdkafka, the same client settings for Spool and Kafka:
//   txn throughput (txn_throughput_workload.cc): `producers` transactional
//     producers, one thread each, on a new topic of `partitions` partitions
//     at the cluster's replication (RF=3, min.insync.replicas=2; acks=all as
//     transactions require). Producer i loops begin -> `messages_per_txn`
//     produce of `message_bytes` to partition i % partitions ->
//     commit_transaction. After init_transactions and one transaction
//     each, all loop for a 2 s warm-up (untimed), then `seconds` timed;
//     result = transactions begun in the timed part (and committed) over
//     the time from its start to the last commit's return.
//   coordinator failover (coordinator_failover_workload.cc): a group id and
//     a transactional.id whose coordinators (FindCoordinator) are the same
//     broker B; two 1-partition RF=3 topics (input, output) led by the other
//     two nodes, B their last replica (a follower: no leader moves, but B
//     leaves their ISR); an acks=all producer sending 16 B every 2 ms to the
//     input topic; a consumer group member (subscribe,
//     enable.auto.commit=false) that commits its position synchronously
//     every 20 ms; a transactional producer looping transactions of one
//     16 B message to the output topic, 5 ms apart. All flowing (commits and
//     transactions succeeding), then kill -9 of B. Measured from the SIGKILL
//     until
//       (a) group: an OffsetCommit sent after the kill succeeds (the group
//           has a coordinator again that accepts this member's generation:
//           stable);
//       (b) txn: commit_transaction succeeds for a transaction whose
//           begin_transaction came after the kill (its produce is acks=all,
//           so this includes B leaving the output partition's ISR).
//     Does not restart B. The clients are destroyed within 30 s or left
//     behind on a detached thread (a librdkafka hang, named in the answer).
// Threading: each workload starts and joins its own threads. Failure: an
// error Status (a timeout names what did not happen, a client error the
// call); nothing throws.
#pragma once

#include <string>

#include "bench/cluster_process.h"
#include "bench/progress.h"
#include "bench/workloads.h"

namespace spool::bench {

struct TxnSpec {
  int partitions = 1;
  int producers = 1;
  int messages_per_txn = 100;
  int message_bytes = 1024;
};
// "cluster/txn/100x1KB/rf=3/p1/x1"
std::string txn_workload_id(const TxnSpec& s, int replication_factor);

struct TxnThroughput {
  int64_t transactions = 0;  // committed in the timed part
  double seconds = 0;
  int64_t payload_bytes_per_txn = 0;
  double txns_per_s() const { return seconds > 0 ? static_cast<double>(transactions) / seconds : 0; }
  double MB_per_s() const {
    return seconds > 0 ? static_cast<double>(transactions * payload_bytes_per_txn) / seconds / 1e6 : 0;
  }
};
// Creates `topic` through t.create_topic (the Target sets the replication).
Result<TxnThroughput> run_txn_throughput(const Target& t, const std::string& topic, const TxnSpec& s, double seconds,
                                         Progress* progress);

struct CoordinatorFailoverResult {
  double group_s = 0;  // SIGKILL -> success of a commit sent after it
  double txn_s = 0;    // SIGKILL -> commit of a transaction begun after it
  int killed = -1;     // B, the coordinator of both
  std::string group_id, transactional_id;
  std::string note;  // non-empty: a client's destroy hung and was left behind (librdkafka)
};
// `name`: unique per run; the ids and topics are derived from it. Before
// choosing, waits until __consumer_offsets and __transaction_state are whole
// (ISR = cluster size). *killed (when not null) is B once killed, else -1.
Result<CoordinatorFailoverResult> run_coordinator_failover(ManagedCluster& c, const std::string& name,
                                                           double timeout_s, Progress* progress,
                                                           int* killed = nullptr);

}  // namespace spool::bench
