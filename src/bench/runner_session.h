// One `spool bench` run's state (internal to runner.cc): the private broker
// or --bootstrap target, the temp dirs, the plan of steps and the Report the
// steps fill. Each step is one workload run against one target; a failing
// step becomes a note and the plan goes on.
// Ownership: owns the private broker (stopped in teardown() or the
// destructor) and the temp work dir (removed in teardown()). Single thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/broker_process.h"
#include "bench/measurement.h"
#include "bench/progress.h"
#include "bench/runner.h"
#include "bench/workloads.h"

namespace spool::bench {

class Session {
 public:
  Session(const BenchOptions& o, const Sizes& z, Report* report);
  ~Session();

  // Makes the work dir and starts the private broker (unless --bootstrap).
  // Failures become notes; the Spool workloads are then left out.
  void setup(const std::string& exe);
  void run_all();
  void teardown();
  void add_note(const std::string& line);

 private:
  // A step returns the text of its progress line, or why it failed.
  using StepFn = std::function<Result<std::string>()>;
  struct Step {
    std::string label;
    StepFn run;
  };

  bool wants(const std::string& family) const;
  void record(const std::string& workload, const std::string& target, const std::string& metric, double value);
  std::string next_topic(const std::string& prefix);
  // Runs `fn` against a fresh mock cluster (the peer keeps data in memory).
  Result<std::string> with_peer(const std::function<Result<std::string>(const Target&)>& fn);
  std::string run_label(const std::string& workload, const std::string& target, int rep) const;

  void plan_machine(std::vector<Step>* steps);
  void plan_produce(std::vector<Step>* steps);
  void plan_consume(std::vector<Step>* steps);
  void plan_latency(std::vector<Step>* steps);
  void plan_broker(std::vector<Step>* steps);
  // --profile: one more run of each workload behind a missed target, with
  // perf attached to the broker; the summaries go to Report::profiles.
  void profile_missed_targets();

  const BenchOptions& o_;
  Sizes z_;
  Report* r_;
  std::string exe_;
  std::string work_dir_;
  std::unique_ptr<BrokerProcess> broker_;
  std::optional<Target> spool_;
  int topic_seq_ = 0;
  std::string consume_topic_;    // Spool's consume log (written by the prefill step)
  bool consume_filled_ = false;
  std::unique_ptr<Progress> progress_;
};

}  // namespace spool::bench
