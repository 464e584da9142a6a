// The cluster workloads of `spool bench --workloads cluster`, run against a
// ManagedCluster (cluster_process.h: Spool on ZooKeeper or the Kafka 4.4
// KRaft peer) through librdkafka, as an application would see a failover.
//   failover: a steady acks=all producer and an assigned consumer on a
//     1-partition topic replicated to every node; the partition leader is
//     kill -9ed; measured from the SIGKILL until (a) the first successful
//     delivery of a message enqueued after the kill, and (b) the consumer's
//     receipt of such a message.
//   replication lag: a rate-limited acks=1 producer on an RF=N topic; every
//     10 ms the sampler asks ListOffsets (latest, READ_UNCOMMITTED: the high
//     watermark) and records lag = (highest offset acknowledged to the
//     producer, read when the answer arrived) + 1 - HW, in messages. With
//     acks=1 the leader acknowledges on append, so the acknowledged offset
//     stands for the leader's log end, which clients cannot see. Reading it
//     after the answer makes it an upper bound (by at most one ListOffsets
//     round trip of acks).
// The RF=N/RF=1 produce throughput reuses run_produce (workloads.h) with a
// Target whose create_topic sets the replication factor.
// Threading: each workload starts and joins its own threads. Failure: an
// error Status (timeouts name what did not happen); nothing throws.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "bench/cluster_process.h"
#include "bench/progress.h"
#include "bench/stats.h"
#include "bench/workloads.h"

namespace spool::bench {

struct FailoverResult {
  double produce_s = 0;  // SIGKILL -> first acks=all delivery of a message sent after it
  double consume_s = 0;  // SIGKILL -> the consumer received a message sent after it
  int killed = -1;       // the node (= broker id) that led the partition
};
// Creates `topic` (1 partition, RF = cluster size), kills its leader and
// waits up to `timeout_s` for both figures. Does not restart the node;
// *killed (when not null) is the node it killed, -1 when it failed before.
Result<FailoverResult> run_failover(ManagedCluster& c, const std::string& topic, double timeout_s,
                                    Progress* progress, int* killed = nullptr);

struct LagResult {
  double MB_per_s = 0;  // acknowledged payload over the sending time
  double p50_msgs = 0, p99_msgs = 0, max_msgs = 0;
  size_t samples = 0;
};
// 1 KB messages at `MB_per_s` for `seconds` to a new 1-partition topic with
// `replication_factor` replicas on `t`.
Result<LagResult> run_replication_lag(const Target& t, const std::string& topic, int replication_factor,
                                      double MB_per_s, double seconds, Progress* progress);

// Controlled shutdown (issue 15's benchmark): `partitions` partitions, RF =
// cluster size, every one with `victim` as preferred (so current) leader;
// one acks=all idempotent producer sends 8 B to each partition in turn
// (one message a millisecond: each partition every `partitions` ms, a load
// under which acknowledgements take milliseconds, not the fsync queue);
// after 3 s of steady flow the victim gets SIGTERM (Kafka's controlled
// shutdown moves its leaders away first), and sending goes on 2 s after it
// exited. A partition's unavailability is the longest that a message sent
// to it from 0.5 s before the SIGTERM to the end waited for its
// acknowledgement (in ms; what an application sees as a stall). The victim
// stays down: the caller restarts it.
struct ShutdownResult {
  std::vector<double> unavailable_ms;  // one per partition
  double baseline_p99_ms = 0;          // acknowledgement latency in the steady seconds before the SIGTERM
  double shutdown_s = 0;               // SIGTERM -> the process exited
  int errors = 0;                      // messages never acknowledged (the producer retries: expected 0)
};
// *stopped (when not null): whether it sent the SIGTERM (then the caller
// restarts the node, whatever the result).
Result<ShutdownResult> run_controlled_shutdown(ManagedCluster& c, const std::string& topic, int partitions, int victim,
                                               Progress* progress, bool* stopped = nullptr);

// Reassignment throughput (issue 15's benchmark): `mb` MB of 16 KB
// messages (acks=1) into a 1-partition topic whose one replica is on node
// `from`, then `spool topic reassign --execute` (with --throttle
// `throttle_Bps` when > 0) moves it to node `to`, and `--verify` is polled
// every 100 ms until the move is complete; MB_per_s = the partition's bytes
// over the seconds from --execute to the first complete --verify. Throttles
// are cleared at the end. `spool`: this binary (the CLI speaks to Kafka too).
struct ReassignResult {
  double MB_per_s = 0;
  double seconds = 0;
  int64_t bytes = 0;
};
Result<ReassignResult> run_reassign(const std::string& spool, const std::string& bootstrap, const std::string& topic,
                                    int from, int to, int64_t mb, int64_t throttle_Bps, const std::string& work_dir,
                                    Progress* progress);

// Has the cluster create the group coordinator's __consumer_offsets (a
// consumer group's FindCoordinator does) and waits until each of its
// partitions has a leader, so that no failover repetition runs while it is
// being created, and every one runs on a cluster that has it, as a cluster
// in use does.
Status ensure_offsets_topic(const std::string& bootstrap, double timeout_s);

// librdkafka settings of clients that notice a dead broker quickly: short
// reconnect and retry backoffs, fast metadata refresh while a partition has
// no leader. The same for Spool and Kafka (also coordinator_workloads.h).
KafkaConfig failover_client(const std::string& bootstrap);

// A Target on a cluster whose topics get `replication_factor` replicas.
Target cluster_target(const std::string& name, const std::string& bootstrap, int replication_factor);

// Waits until pred() or `seconds` passed (false then), polling every 5 ms
// and showing "<what> <seconds waited> s" on `progress` (may be null).
template <class Pred>
bool wait_for(Pred pred, double seconds, Progress* progress, const std::string& what) {
  auto t0 = std::chrono::steady_clock::now();
  while (!pred()) {
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (waited > seconds) return false;
    if (progress) progress->live(what + " " + human_number(waited) + " s");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Stores `value` into `slot` unless it was set already (0 = unset): the
// first of several threads to see an event keeps its time.
inline void set_once(std::atomic<int64_t>& slot, int64_t value) {
  int64_t unset = 0;
  slot.compare_exchange_strong(unset, value);
}

}  // namespace spool::bench
