// Session planning of the cluster family's operations workloads (issue 15;
// runner_session.h, cluster_workloads.h), called by plan_cluster
// (cluster_plan.cc) for the throughput phase of each target:
//   plan_controlled_shutdown: `repetitions` times, a new 100-partition RF=3
//     topic led by one node, that node SIGTERMed under load
//     (run_controlled_shutdown), then restarted (the cluster whole again)
//     before the next.
//   plan_reassign: `repetitions` times, a 1-replica partition of 256 MB
//     (--quick: 32 MB) moved from node 0 to node 1 by `spool topic reassign`
//     (run_reassign), unthrottled, then with a 10 MB/s throttle (--quick: 2).
//     --workloads machine,cluster/reassign puts the machine's disk write
//     rate beside it.
// In plan_controlled_shutdown the stopping The node is not the one Metadata names as controller (Spool's
// controller moving too would measure a controller failover as well; on
// Kafka's KRaft peer Metadata names any broker, so its node may be the
// quorum's leader).
// Workload ids (measurement.h):
//   cluster/controlled-shutdown/p100/rf=3   unavailable_p50_ms, unavailable_p99_ms,
//                                            unavailable_max_ms, shutdown_s
//   cluster/reassign/<MB>MB/<unthrottled|throttle=<N>MBps>   MB_per_s, seconds
#include <algorithm>

#include "bench/cluster_workloads.h"
#include "bench/runner_session.h"

namespace spool::bench {
namespace {

constexpr int kPartitions = 100;
constexpr double kRestartTimeout = 180;

int controller_id(const std::string& bootstrap) {
  auto c = make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", bootstrap}, {"log_level", "0"}});
  if (!c) return -1;
  return rd_kafka_controllerid(c->get(), 10000);
}

}  // namespace

void Session::plan_controlled_shutdown(const std::string& target, std::vector<Step>* steps) {
  const std::string id = "cluster/controlled-shutdown/p" + std::to_string(kPartitions) + "/rf=3";
  for (int rep = 1; rep <= z_.repetitions; ++rep) {
    steps->push_back({run_label(id, target, rep), [this, target, id]() -> Result<std::string> {
                        if (!cluster_) return Status::error("the cluster is not running");
                        const int controller = controller_id(cluster_->bootstrap());
                        const int victim = (std::max(controller, 0) + 1) % cluster_->size();
                        std::string topic = next_topic("shutdown");
                        bool stopped = false;
                        auto res =
                            run_controlled_shutdown(*cluster_, topic, kPartitions, victim, progress_.get(), &stopped);
                        Status back = stopped ? cluster_->restart(victim, kRestartTimeout) : Status::ok();
                        if (!back) cluster_.reset();  // a node is down: the rest of this cluster's steps skip
                        if (!res) return Status::error(res.status().message() + (back ? "" : "; restart failed"));
                        if (!back) return Status::error("restart of node " + std::to_string(victim) + ": " + back.message());
                        (void)delete_topics(cluster_->bootstrap(), {topic}, 30000);
                        std::vector<double> ms = res->unavailable_ms;
                        std::sort(ms.begin(), ms.end());
                        const double p50 = percentile_sorted(ms, 0.50), p99 = percentile_sorted(ms, 0.99);
                        record(id, target, "unavailable_p50_ms", p50);
                        record(id, target, "unavailable_p99_ms", p99);
                        record(id, target, "unavailable_max_ms", ms.back());
                        record(id, target, "shutdown_s", res->shutdown_s);
                        return "node " + std::to_string(victim) + " stopped in " + human_number(res->shutdown_s) +
                               " s; per-partition unavailability p50 " + human_number(p50) + " ms, p99 " +
                               human_number(p99) + " ms, max " + human_number(ms.back()) + " ms (before: p99 " +
                               human_number(res->baseline_p99_ms) + " ms); " + std::to_string(res->errors) +
                               " never acknowledged";
                      }});
  }
}

void Session::plan_reassign(const std::string& target, std::vector<Step>* steps) {
  const int64_t mb = o_.quick ? 32 : 256;
  const int64_t throttle_MBps = o_.quick ? 2 : 10;
  for (int rep = 1; rep <= z_.repetitions; ++rep) {
    for (int64_t throttle : {int64_t{0}, throttle_MBps}) {
      const std::string id = "cluster/reassign/" + std::to_string(mb) + "MB/" +
                             (throttle > 0 ? "throttle=" + std::to_string(throttle) + "MBps" : "unthrottled");
      steps->push_back({run_label(id, target, rep), [this, target, id, mb, throttle]() -> Result<std::string> {
                          if (!cluster_) return Status::error("the cluster is not running");
                          if (exe_.empty()) return Status::error("no spool executable (for spool topic reassign)");
                          std::string topic = next_topic("reassign");
                          auto res = run_reassign(exe_, cluster_->bootstrap(), topic, 0, 1, mb, throttle * 1000 * 1000,
                                                  cluster_dir_, progress_.get());
                          (void)delete_topics(cluster_->bootstrap(), {topic}, 30000);
                          if (!res) return res.status();
                          record(id, target, "MB_per_s", res->MB_per_s);
                          record(id, target, "seconds", res->seconds);
                          return human_number(static_cast<double>(res->bytes) / 1e6) + " MB moved in " +
                                 human_number(res->seconds) + " s: " + human_number(res->MB_per_s) + " MB/s";
                        }});
    }
  }
}

}  // namespace spool::bench
