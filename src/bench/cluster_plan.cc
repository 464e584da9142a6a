// Session planning of the cluster family (runner_session.h,
// cluster_workloads.h): one phase per cluster configuration, each on a fresh
// 3-node cluster that is started, measured and stopped before the next:
//   spool   ZooKeeper + 3 Spool brokers, zookeeper.session.timeout.ms default (18000)
//   kafka   3 Kafka 4.4 KRaft nodes, Kafka's defaults (broker.session.timeout.ms=9000)
//   spool   the same with zookeeper.session.timeout.ms=2000
//   kafka   the same with broker.session.timeout.ms=2000 broker.heartbeat.interval.ms=500
// Every cluster: min.insync.replicas=2, default.replication.factor=3, and
// __consumer_offsets (50 partitions, RF=3) made before the first failover
// (and __transaction_state, 50 x RF=3, whole, when a transaction workload
// runs). Each phase runs, in this order: the transaction throughput
// (throughput phases only, on the cluster as started: coordinator_plan.cc),
// the leader failover `repetitions` times, the coordinator failover
// `repetitions` times (coordinator_plan.cc; the killed node is restarted in
// between), then the RF=3 vs RF=1 acks=all produce throughput, the
// replication lag, the controlled shutdown and the reassignment throughput
// (throughput phases only). The throughput phases are the
// default-timeout ones (--quick: the 2 s ones). --workloads cluster/<name>
// runs only that workload of the family. Kafka phases need --peer kafka.
// Workload ids (measurement.h):
//   cluster/failover/<produce|consume>/session=<default|2s>   seconds
//   cluster/produce/1KB/acks=all/p1/rf=<1|3>, .../rf=3-over-rf=1 (ratio per repetition)
//   cluster/lag/1KB/acks=1/rf=3/<N>MBps   MB_per_s, lag_p50/p99/max_msgs
//   cluster/txn/100x1KB/rf=3/p<P>/x<X>   txns_per_s, MB_per_s
//   cluster/coordinator-failover/<group|txn>/session=<default|2s>   seconds
//   cluster/controlled-shutdown/p100/rf=3   unavailable_p50/p99/max_ms, shutdown_s (operations_plan.cc)
//   cluster/reassign/<MB>MB/<unthrottled|throttle=<N>MBps>   MB_per_s, seconds (operations_plan.cc)
#include <filesystem>

#include "bench/cluster_process.h"
#include "bench/cluster_workloads.h"
#include "bench/coordinator_lookup.h"
#include "bench/runner_session.h"

namespace spool::bench {
namespace {

constexpr int kNodes = 3;
constexpr double kLagMBps = 50;
constexpr double kClusterStartTimeout = 180;
constexpr double kFailoverTimeout = 90;

struct ClusterConfig {
  std::string target;   // "spool" | "kafka"
  std::string setting;  // "default" | "2s"
  std::vector<std::string> overrides;
  bool throughput = false;  // also the RF and lag workloads
};

}  // namespace

void Session::plan_cluster(std::vector<Step>* steps) {
  if (!o_.bootstrap.empty()) {
    add_note("cluster: skipped with --bootstrap (the workloads start and kill their own clusters)");
    return;
  }
  auto real_exe = self_executable();
  auto zk = locate_zk_server(real_exe ? *real_exe : std::string());
  const std::vector<std::string> common = {"min.insync.replicas=2", "default.replication.factor=3"};
  std::vector<std::string> spool = common;
  spool.insert(spool.end(), {"offsets.topic.replication.factor=3", "transaction.state.log.replication.factor=3",
                             "transaction.state.log.min.isr=2", "group.initial.rebalance.delay.ms=0"});
  spool.insert(spool.end(), o_.broker_overrides.begin(), o_.broker_overrides.end());
  auto with = [](std::vector<std::string> v, std::vector<std::string> more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  std::vector<ClusterConfig> configs;
  if (!o_.quick) configs.push_back({"spool", "default", spool, true});
  if (!o_.quick && peer_ == "kafka") configs.push_back({"kafka", "default", common, true});
  configs.push_back({"spool", "2s", with(spool, {"zookeeper.session.timeout.ms=2000"}), o_.quick});
  const std::vector<std::string> kafka_fast = {"broker.session.timeout.ms=2000", "broker.heartbeat.interval.ms=500"};
  if (peer_ == "kafka") configs.push_back({"kafka", "2s", with(common, kafka_fast), o_.quick});

  add_note("cluster: 3 nodes on this machine, min.insync.replicas=2, default.replication.factor=3; one fresh cluster "
           "per configuration, started, measured and stopped before the next (Spool: ZooKeeper 3.8 from "
           "tests/support/zk-server + 3 spool brokers; Kafka: scripts/kafka-peer cluster-start, 3 combined "
           "broker+controller KRaft nodes). session=default is Spool's zookeeper.session.timeout.ms=18000 and "
           "Kafka's broker.session.timeout.ms=9000; session=2s is zookeeper.session.timeout.ms=2000 and "
           "broker.session.timeout.ms=2000 broker.heartbeat.interval.ms=500; every cluster has its __consumer_offsets "
           "(50 partitions, RF=3) created and led before the first failover, as a cluster in use has");
  if (wants_cluster("failover")) {
    add_note("cluster/failover: a 1-partition RF=3 topic, an acks=all producer sending 16 B every 2 ms and a consumer "
             "assigned to it, both flowing; SIGKILL to the partition leader's process (Kafka: the JVM, then "
             "kafka-peer kill9 reaps it); seconds from the SIGKILL until the first acks=all delivery of a message "
             "enqueued after it (produce) and until the consumer received such a message (consume). librdkafka "
             "reconnect/retry backoffs 10 ms (max 100 ms), topic.metadata.refresh.fast.interval.ms=50, the same for "
             "both brokers; the killed node is restarted and the cluster whole again before the next repetition");
  }
  if (wants_cluster("produce")) {
    add_note("cluster/produce: the produce workload (1 KB, acks=all, 1 partition, 1 producer) on the same running "
             "cluster with a topic of RF=1 then RF=3; rf=3-over-rf=1 is the ratio of each repetition's pair");
  }
  if (wants_cluster("lag")) {
    add_note("cluster/lag: 1 KB messages at " + human_number(kLagMBps) + " MB/s (rate-limited, acks=1) to a "
             "1-partition RF=3 topic; every 10 ms a ListOffsets (latest, READ_UNCOMMITTED, i.e. the high watermark); "
             "lag = highest offset acknowledged to the producer (read when the answer arrived; with acks=1 the "
             "leader's log end as the producer saw it) + 1 - HW, in messages (x 1 KB); MB_per_s is the rate "
             "achieved; Spool's HW is the minimum fsynced offset over the ISR, Kafka's the minimum log end");
  }
  if (wants_cluster("controlled-shutdown")) {
    add_note("cluster/controlled-shutdown: a new 100-partition RF=3 topic whose every partition is led by one node "
             "(not the one Metadata names controller); an acks=all idempotent producer (the client settings of "
             "cluster/failover) sends 8 B to each partition in turn, one message a millisecond; after 3 s the node "
             "gets SIGTERM (controlled shutdown) and sending goes on 2 s past its exit; a partition's unavailability "
             "is the longest acknowledgement wait of a message sent to it from 0.5 s before the SIGTERM on; "
             "p50/p99/max over the 100 partitions; shutdown_s is SIGTERM to exit; the node is restarted before the "
             "next repetition");
  }
  if (wants_cluster("reassign")) {
    add_note("cluster/reassign: a 1-partition topic with its one replica on node 0, filled with 16 KB messages "
             "(acks=1), moved to node 1 with `spool topic reassign --execute` (the same CLI for Kafka), unthrottled and "
             "with --throttle; seconds from --execute until `--verify` (polled every 100 ms) reports it complete; the "
             "quota's default window (replication.quota.window.num=11) lets about 10 s worth of the throttle through "
             "at first, so a throttled move's mean rate is above its throttle; compare with machine/disk-write "
             "(--workloads machine,cluster/reassign)");
  }
  if (peer_ != "kafka") add_note("cluster: no Kafka cluster without --peer kafka: no Spool/Kafka cluster ratios");
  add_coordinator_notes();
  if (!zk) add_note("cluster: Spool's cluster needs ZooKeeper: " + zk.status().message());

  const std::string zk_server = zk ? *zk : std::string();
  const bool coordinators = wants_cluster("txn") || wants_cluster("coordinator-failover");
  for (const ClusterConfig& cfg : configs) {
    const std::string label = cfg.target + " session=" + cfg.setting;
    steps->push_back({"start cluster " + label, [this, cfg, zk_server, coordinators]() -> Result<std::string> {
                        cluster_.reset();
                        if (work_dir_.empty()) return Status::error("no work dir");
                        std::string dir = work_dir_ + "/cluster-" + cfg.target + "-" + cfg.setting;
                        std::error_code ec;
                        std::filesystem::create_directories(dir, ec);
                        std::unique_ptr<ManagedCluster> c;
                        if (cfg.target == "kafka") {
                          c = std::make_unique<KafkaPeerCluster>(kafka_script_, dir, kNodes, cfg.overrides);
                        } else {
                          if (zk_server.empty()) return Status::error("no tests/support/zk-server");
                          if (exe_.empty()) return Status::error("no spool executable");
                          c = std::make_unique<SpoolCluster>(exe_, zk_server, dir, kNodes, cfg.overrides);
                        }
                        if (auto st = c->start(kClusterStartTimeout); !st) return st;
                        if (auto st = ensure_offsets_topic(c->bootstrap(), kClusterStartTimeout); !st)
                          return Status::error("__consumer_offsets: " + st.message());
                        if (coordinators) {
                          std::vector<std::string> nodes;
                          for (int i = 0; i < c->size(); ++i) nodes.push_back(c->node_bootstrap(i));
                          if (auto st = ensure_coordinator_topics(nodes, c->size(), kClusterStartTimeout); !st)
                            return Status::error("coordinator topics: " + st.message());
                        }
                        cluster_ = std::move(c);
                        cluster_dir_ = dir;
                        return "serving on " + cluster_->bootstrap();
                      }});
    if (cfg.throughput && wants_cluster("txn")) plan_cluster_txn(cfg.target, steps);
    for (int rep = 1; rep <= z_.repetitions && wants_cluster("failover"); ++rep) {
      const std::string fid = "cluster/failover/session=" + cfg.setting;
      steps->push_back({run_label(fid, cfg.target, rep), [this, cfg]() -> Result<std::string> {
                          if (!cluster_) return Status::error("the cluster is not running");
                          std::string topic = next_topic("failover");
                          int killed = -1;
                          auto res = run_failover(*cluster_, topic, kFailoverTimeout, progress_.get(), &killed);
                          if (!res) {
                            std::string msg = res.status().message() + "\n" + cluster_->log_tail();
                            if (killed >= 0) {
                              if (auto st = cluster_->restart(killed, kClusterStartTimeout); !st) {
                                cluster_.reset();  // a node is down: the rest of this cluster's steps skip
                                msg += "\nrestart of node " + std::to_string(killed) + " failed: " + st.message();
                              }
                            }
                            return Status::error(msg);
                          }
                          record("cluster/failover/produce/session=" + cfg.setting, cfg.target, "seconds",
                                 res->produce_s);
                          record("cluster/failover/consume/session=" + cfg.setting, cfg.target, "seconds",
                                 res->consume_s);
                          std::string line = "node " + std::to_string(res->killed) + " killed: produce after " +
                                             human_number(res->produce_s) + " s, consume after " +
                                             human_number(res->consume_s) + " s";
                          if (auto st = cluster_->restart(res->killed, kClusterStartTimeout); !st) {
                            cluster_.reset();  // the next steps of this cluster skip
                            return Status::error(line + "; restart failed: " + st.message());
                          }
                          (void)delete_topics(cluster_->bootstrap(), {topic}, 30000);
                          return line + "; restarted";
                        }});
    }
    if (wants_cluster("coordinator-failover")) plan_coordinator_failover(cfg.target, cfg.setting, steps);
    if (cfg.throughput) plan_cluster_throughput(cfg.target, steps);
    if (cfg.throughput && wants_cluster("controlled-shutdown")) plan_controlled_shutdown(cfg.target, steps);
    if (cfg.throughput && wants_cluster("reassign")) plan_reassign(cfg.target, steps);
    steps->push_back({"stop cluster " + label, [this]() -> Result<std::string> {
                        if (!cluster_) return std::string("was not running");
                        Status st = cluster_->stop(60);
                        cluster_.reset();
                        std::error_code ec;
                        std::filesystem::remove_all(cluster_dir_, ec);
                        if (!st) return st;
                        return std::string("stopped");
                      }});
  }
}

void Session::plan_cluster_throughput(const std::string& target, std::vector<Step>* steps) {
  const int64_t n = std::max<int64_t>(z_.messages / 4, 100);
  const double lag_seconds = o_.quick ? 2 : 10;
  for (int rep = 1; rep <= z_.repetitions; ++rep) {
    const std::string base = "cluster/produce/1KB/acks=all/p1/rf=";
    if (wants_cluster("produce")) {
      steps->push_back({run_label(base + "1 and rf=3", target, rep), [this, target, base, n]() -> Result<std::string> {
                          if (!cluster_) return Status::error("the cluster is not running");
                          double rate[2] = {0, 0};
                          int rfs[2] = {1, kNodes};
                          for (int i = 0; i < 2; ++i) {
                            Target t = cluster_target(target, cluster_->bootstrap(), rfs[i]);
                            std::string topic = next_topic("cluster-rf" + std::to_string(rfs[i]));
                            auto res = run_produce(t, topic, ProduceSpec{1024, true, 1, 1}, n, z_.duration_s,
                                                   progress_.get());
                            t.drop_topic(topic);
                            if (!res)
                              return Status::error("rf=" + std::to_string(rfs[i]) + ": " + res.status().message());
                            record(base + std::to_string(rfs[i]), target, "msgs_per_s", res->msgs_per_s());
                            record(base + std::to_string(rfs[i]), target, "MB_per_s", res->MB_per_s());
                            rate[i] = res->msgs_per_s();
                          }
                          record(base + "3-over-rf=1", target, "ratio", rate[1] / rate[0]);
                          return "rf=1 " + human_number(rate[0]) + " msg/s, rf=3 " + human_number(rate[1]) +
                                 " msg/s (" + human_number(rate[1] / rate[0]) + "x)";
                        }});
    }
    const std::string lid = "cluster/lag/1KB/acks=1/rf=3/" + std::to_string(static_cast<int>(kLagMBps)) + "MBps";
    if (wants_cluster("lag")) {
      steps->push_back({run_label(lid, target, rep), [this, target, lid, lag_seconds]() -> Result<std::string> {
                          if (!cluster_) return Status::error("the cluster is not running");
                          Target t = cluster_target(target, cluster_->bootstrap(), kNodes);
                          std::string topic = next_topic("cluster-lag");
                          auto res = run_replication_lag(t, topic, kNodes, kLagMBps, lag_seconds, progress_.get());
                          t.drop_topic(topic);
                          if (!res) return res.status();
                          record(lid, target, "MB_per_s", res->MB_per_s);
                          record(lid, target, "lag_p50_msgs", res->p50_msgs);
                          record(lid, target, "lag_p99_msgs", res->p99_msgs);
                          record(lid, target, "lag_max_msgs", res->max_msgs);
                          return human_number(res->MB_per_s) + " MB/s achieved, lag p50 " +
                                 human_number(res->p50_msgs) + " p99 " + human_number(res->p99_msgs) + " max " +
                                 human_number(res->max_msgs) + " messages (" + std::to_string(res->samples) +
                                 " samples)";
                        }});
    }
  }
}

}  // namespace spool::bench
