// Session planning of the cluster family's transaction workloads
// (runner_session.h, coordinator_workloads.h), called by plan_cluster
// (cluster_plan.cc) for each cluster it starts:
//   plan_cluster_txn: per repetition, the transaction throughput of each
//     TxnSpec below on the cluster's default replication (RF=3).
//   plan_coordinator_failover: `repetitions` kills of the broker that is
//     both the group and the transaction coordinator; the killed node is
//     restarted (and the cluster whole again) before the next.
// Workload ids (measurement.h):
//   cluster/txn/100x1KB/rf=3/p<P>/x<X>   txns_per_s, MB_per_s
//   cluster/coordinator-failover/<group|txn>/session=<default|2s>   seconds
#include "bench/cluster_workloads.h"
#include "bench/coordinator_workloads.h"
#include "bench/runner_session.h"

namespace spool::bench {
namespace {

constexpr int kReplicas = 3;  // the clusters' size and default.replication.factor (cluster_plan.cc)
constexpr double kRestartTimeout = 180;
constexpr double kCoordinatorFailoverTimeout = 90;

// One producer on one partition: each transaction's round trips one after
// the other; four producers each on a partition of their own: what the
// coordinators and leaders sustain with some concurrency.
std::vector<TxnSpec> txn_specs(bool quick) {
  if (quick) return {{1, 1, 100, 1024}};
  return {{1, 1, 100, 1024}, {4, 4, 100, 1024}};
}

}  // namespace

void Session::plan_cluster_txn(const std::string& target, std::vector<Step>* steps) {
  for (int rep = 1; rep <= z_.repetitions; ++rep) {
    for (const TxnSpec& spec : txn_specs(o_.quick)) {
      const std::string id = txn_workload_id(spec, kReplicas);
      steps->push_back({run_label(id, target, rep), [this, target, spec, id]() -> Result<std::string> {
                          if (!cluster_) return Status::error("the cluster is not running");
                          Target t = cluster_target(target, cluster_->bootstrap(), kReplicas);
                          std::string topic = next_topic("txn");
                          auto res = run_txn_throughput(t, topic, spec, z_.duration_s, progress_.get());
                          t.drop_topic(topic);
                          if (!res) return res.status();
                          record(id, target, "txns_per_s", res->txns_per_s());
                          record(id, target, "MB_per_s", res->MB_per_s());
                          return human_number(res->txns_per_s()) + " txn/s, " + human_number(res->MB_per_s()) +
                                 " MB/s (" + std::to_string(res->transactions) + " transactions in " +
                                 human_number(res->seconds) + " s)";
                        }});
    }
  }
}

void Session::plan_coordinator_failover(const std::string& target, const std::string& setting,
                                        std::vector<Step>* steps) {
  const std::string base = "cluster/coordinator-failover/";
  for (int rep = 1; rep <= z_.repetitions; ++rep) {
    steps->push_back({run_label(base + "session=" + setting, target, rep),
                      [this, target, setting, base]() -> Result<std::string> {
                        if (!cluster_) return Status::error("the cluster is not running");
                        int killed = -1;
                        auto res = run_coordinator_failover(*cluster_, next_topic("coord"),
                                                            kCoordinatorFailoverTimeout, progress_.get(), &killed);
                        std::string line;
                        if (res) {
                          record(base + "group/session=" + setting, target, "seconds", res->group_s);
                          record(base + "txn/session=" + setting, target, "seconds", res->txn_s);
                          line = "broker " + std::to_string(res->killed) + " (coordinator of " + res->group_id +
                                 " and " + res->transactional_id + ") killed: group stable after " +
                                 human_number(res->group_s) + " s, next transaction after " +
                                 human_number(res->txn_s) + " s";
                          if (!res->note.empty()) {
                            line += " (" + res->note + ")";
                            add_note(base + "session=" + setting + " " + target + ": " + res->note);
                          }
                        } else {
                          line = res.status().message() + "\n" + cluster_->log_tail();
                        }
                        if (killed >= 0) {
                          if (auto st = cluster_->restart(killed, kRestartTimeout); !st) {
                            cluster_.reset();  // a node is down: the rest of this cluster's steps skip
                            return Status::error(line + "\nrestart of node " + std::to_string(killed) +
                                                 " failed: " + st.message());
                          }
                        }
                        if (!res) return Status::error(line);
                        return line + "; restarted";
                      }});
  }
}

void Session::add_coordinator_notes() {
  if (wants_cluster("txn"))
    add_note("cluster/txn: transactional librdkafka producers (transactional.id each, acks=all, enable.idempotence, "
             "the produce workload's batching: linger.ms=5, batch.size=1000000, no compression) on a new topic of P "
             "partitions, RF=3, min.insync.replicas=2; producer i loops begin_transaction -> 100 x 1 KB to "
             "partition i -> commit_transaction; p1/x1: 1 producer, 1 partition; p4/x4: 4 producers, 4 partitions, "
             "one each (the same for Spool and Kafka); after init_transactions and one transaction each, all loop "
             "2 s untimed (warm-up), then " +
             human_number(z_.duration_s) + " s timed; txns_per_s = transactions begun in the timed part / (last "
             "commit's return - its start), MB_per_s = payload (100 x 1024 B per transaction) in 10^6 bytes; runs "
             "on the cluster as started, before any kill");
  if (wants_cluster("coordinator-failover"))
    add_note("cluster/coordinator-failover: a group id and a transactional.id whose coordinators (FindCoordinator v1) "
             "are the same broker B (__consumer_offsets and __transaction_state: 50 partitions, RF=3, ISR full "
             "before each kill); input and output topics of 1 partition, RF=3, led by the two other nodes, B a "
             "follower (no data leader moves); an acks=all producer sends 16 B every 2 ms to the input; a consumer "
             "group member (subscribe, librdkafka's classic protocol and defaults: session.timeout.ms=45000, "
             "heartbeat.interval.ms=3000) commits its position synchronously every 20 ms; a transactional "
             "producer loops transactions of one 16 B message to the output, 5 ms apart; the client settings of "
             "cluster/failover; then SIGKILL to B. group = seconds from the SIGKILL until an OffsetCommit sent "
             "after it succeeds (the group has a coordinator and this member a valid generation: stable); txn = "
             "seconds until commit_transaction succeeds for a transaction begun after the kill (retriable errors "
             "retried, abortable ones aborted; its acks=all produce also waits for B to leave the output "
             "partition's ISR); B is restarted before the next repetition");
}

}  // namespace spool::bench
