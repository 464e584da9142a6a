// One `spool bench` run's state (internal to runner.cc): the broker
// configurations ("deployments") of the run, the temp dirs, the plan of steps
// and the Report the steps fill.
//
// The plan: the machine limits, then for each repetition one phase per
// deployment in a fixed order (spool, kafka, spool-nodurable, kafka-flush1;
// or spool, mock, spool-nodurable): start that broker on a fresh data dir,
// run its workloads, stop it and remove its data; then, with no other broker
// running, the RSS and restart workloads on brokers of their own. Repeating
// phase by phase keeps Spool's and Kafka's runs of one repetition minutes
// apart on a shared machine. Full deployments (spool, kafka, mock) run every
// workload; the durability rows (spool-nodurable, kafka-flush1) run the
// produce and latency workloads the durability comparison needs. The mock
// peer has no phase: every run gets a fresh in-process cluster.
// Each step is one workload run against one broker; a failing step becomes
// a note and the plan goes on; a broker that did not start skips its phase.
// Ownership: owns the brokers (stopped at the end of their phase, in
// teardown() or the destructor) and the temp work dir (removed in
// teardown()). Single thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/broker_process.h"
#include "bench/cluster_process.h"
#include "bench/kafka_tools.h"
#include "bench/measurement.h"
#include "bench/progress.h"
#include "bench/runner.h"
#include "bench/workloads.h"

namespace spool::bench {

class Session {
 public:
  // peer: "kafka" | "mock" | "none"; kafka_script: scripts/kafka-peer (kafka only).
  Session(const BenchOptions& o, const Sizes& z, Report* report, std::string peer, std::string kafka_script);
  ~Session();

  // Makes the work dir and decides the deployments (Report::targets).
  void setup(const std::string& exe);
  void run_all();
  void teardown();
  void add_note(const std::string& line);

 private:
  enum class Kind { kSpool, kKafka, kMock };
  struct Deployment {
    std::string name;  // the measurement target
    Kind kind = Kind::kSpool;
    std::vector<std::string> overrides;
    bool full = true;  // every workload; else the durability subset
    // State of the current phase.
    std::unique_ptr<ManagedBroker> broker;
    std::optional<Target> target;
    std::string phase_dir;
    std::string consume_topic;
    bool consume_filled = false;
  };
  // A step returns the text of its progress line, or why it failed.
  using StepFn = std::function<Result<std::string>()>;
  struct Step {
    std::string label;
    StepFn run;
    Deployment* needs = nullptr;  // skipped when this deployment's broker is not up
  };

  // "cluster", "security" and "operability" only when named (or one of their workloads).
  bool wants(const std::string& family) const;
  bool wants_cluster(const std::string& workload) const;  // "cluster" or "cluster/<workload>" named
  bool wants_security(const std::string& workload) const;  // "security" or "security/<workload>" named
  bool wants_operability(const std::string& workload) const;  // "operability" or "operability/<workload>" named
  void record(const std::string& workload, const std::string& target, const std::string& metric, double value);
  std::string next_topic(const std::string& prefix);
  std::string run_label(const std::string& workload, const std::string& target, int rep) const;
  // Runs `fn` against `d`'s live target, or a fresh mock cluster for the mock.
  Result<std::string> on(Deployment& d, const std::function<Result<std::string>(const Target&)>& fn);

  Status start_phase(Deployment& d, int rep);
  Status stop_phase(Deployment& d);
  std::unique_ptr<ManagedBroker> make_broker(const Deployment& d, const std::string& dir) const;

  void plan_machine(std::vector<Step>* steps);
  void plan_phase(Deployment& d, int rep, std::vector<Step>* steps);
  void plan_produce(Deployment& d, int rep, std::vector<Step>* steps);
  void plan_consume(Deployment& d, int rep, std::vector<Step>* steps);
  void plan_latency(Deployment& d, int rep, std::vector<Step>* steps);
  void plan_tools(Deployment& d, int rep, std::vector<Step>* steps);
  void plan_own_brokers(Deployment& d, int rep, std::vector<Step>* steps);
  // The client family (client_plan.cc): native producer and consumer vs
  // librdkafka on the Spool deployment's broker.
  void plan_client(Deployment& d, int rep, std::vector<Step>* steps);
  void plan_client_consume(Deployment& d, int rep, std::vector<Step>* steps);  // one log, each client reads it
  std::vector<std::string> client_order(int rep) const;  // which client runs first in repetition `rep`
  void add_client_notes();
  // The cluster family (cluster_plan.cc), opt-in: only when --workloads names it.
  void plan_cluster(std::vector<Step>* steps);
  void plan_cluster_throughput(const std::string& target, std::vector<Step>* steps);
  // Transactions and coordinator failover (coordinator_plan.cc) on the current cluster.
  void plan_cluster_txn(const std::string& target, std::vector<Step>* steps);
  void plan_coordinator_failover(const std::string& target, const std::string& setting, std::vector<Step>* steps);
  void plan_controlled_shutdown(const std::string& target, std::vector<Step>* steps);  // operations_plan.cc
  void plan_reassign(const std::string& target, std::vector<Step>* steps);
  void add_coordinator_notes();
  // The security family (security_plan.cc), opt-in: TLS consume, SASL_SSL
  // produce and the authorizer's cost, each against plaintext.
  void plan_security(std::vector<Step>* steps);
  // The operability family (operability_plan.cc), opt-in: a /metrics
  // scraper's cost to produce, admin page times with 1,000 partitions.
  void plan_operability(std::vector<Step>* steps);
  void add_plan_notes();
  int e2e_records() const;  // EndToEndLatency messages per run: half the latency workload's (JVM round trips are slow)
  // --profile: one more run of each workload behind a missed target, with
  // perf attached to a fresh Spool broker; the summaries go to Report::profiles.
  void profile_missed_targets();

  const BenchOptions& o_;
  Sizes z_;
  Report* r_;
  std::string peer_;
  std::string kafka_script_;
  std::string exe_;
  std::string work_dir_;
  std::vector<std::unique_ptr<Deployment>> deps_;
  std::optional<JavaTools> tools_;
  std::string tools_error_;
  int topic_seq_ = 0;
  std::unique_ptr<Progress> progress_;
  std::unique_ptr<ManagedCluster> cluster_;  // the cluster family's current cluster
  std::string cluster_dir_;
};

}  // namespace spool::bench
