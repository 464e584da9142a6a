// Session core (runner_session.h): deployments, phases (start / stop of one
// broker configuration), the step loop, the RSS/restart steps and --profile.
// The per-family workload steps are planned in runner_plan.cc.
#include "bench/runner_session.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "bench/kafka_peer.h"
#include "bench/peer_cluster.h"
#include "bench/perf_profile.h"
#include "bench/targets.h"

namespace spool::bench {
namespace {

constexpr const char* kKafkaFlushOverride = "log.flush.interval.messages=1";

bool has_key(const std::vector<std::string>& overrides, const std::string& key) {
  for (const auto& o : overrides)
    if (o.rfind(key + "=", 0) == 0) return true;
  return false;
}

}  // namespace

Session::Session(const BenchOptions& o, const Sizes& z, Report* report, std::string peer, std::string kafka_script)
    : o_(o), z_(z), r_(report), peer_(std::move(peer)), kafka_script_(std::move(kafka_script)) {}

Session::~Session() { teardown(); }

void Session::add_note(const std::string& line) {
  // Notes are single lines in the report (a broker log tail is multi-line).
  std::string flat;
  for (char c : line) flat += (c == '\n' || c == '\r') ? ' ' : c;
  if (flat.size() > 800) flat = flat.substr(0, 800) + "...";
  r_->notes.push_back(flat);
}

bool Session::wants(const std::string& family) const {
  if (o_.workloads.empty()) return family != "cluster" && family != "security" && family != "operability";
  for (const auto& w : o_.workloads)
    if (w == family || w.rfind(family + "/", 0) == 0) return true;
  return false;
}

bool Session::wants_cluster(const std::string& workload) const {
  const auto& w = o_.workloads;
  return std::find(w.begin(), w.end(), "cluster") != w.end() ||
         std::find(w.begin(), w.end(), "cluster/" + workload) != w.end();
}

bool Session::wants_security(const std::string& workload) const {
  const auto& w = o_.workloads;
  return std::find(w.begin(), w.end(), "security") != w.end() ||
         std::find(w.begin(), w.end(), "security/" + workload) != w.end();
}

bool Session::wants_operability(const std::string& workload) const {
  const auto& w = o_.workloads;
  return std::find(w.begin(), w.end(), "operability") != w.end() ||
         std::find(w.begin(), w.end(), "operability/" + workload) != w.end();
}

void Session::record(const std::string& workload, const std::string& target, const std::string& metric,
                     double value) {
  for (auto& m : r_->measurements) {
    if (m.workload == workload && m.target == target && m.metric == metric) {
      m.runs.push_back(value);
      return;
    }
  }
  r_->measurements.push_back(Measurement{workload, target, metric, {value}});
}

std::string Session::next_topic(const std::string& prefix) {
  return "bench-" + prefix + "-" + std::to_string(++topic_seq_);
}

std::string Session::run_label(const std::string& workload, const std::string& target, int rep) const {
  return workload + " " + target + " run " + std::to_string(rep) + "/" + std::to_string(z_.repetitions);
}

Result<std::string> Session::on(Deployment& d, const std::function<Result<std::string>(const Target&)>& fn) {
  if (d.kind != Kind::kMock) {
    if (!d.target) return Status::error(d.name + " is not running");
    return fn(*d.target);
  }
  auto peer = PeerCluster::create();
  if (!peer) return peer.status();
  PeerCluster* pc = peer->get();
  Target t{"mock", pc->bootstrap(), "", [pc](const NewTopic& nt) { return pc->create_topic(nt.name, nt.partitions); },
           [](const std::string&) {}};
  return fn(t);
}

void Session::setup(const std::string& exe) {
  exe_ = exe;
  std::string parent = o_.data_dir;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = tmp && *tmp ? tmp : "/tmp";
  }
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  std::string tmpl = parent + "/spool-bench-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    add_note("cannot create a work dir under " + parent + ": the bench's own brokers and disk limits skipped");
  } else {
    work_dir_ = tmpl;
  }

  // Spool gets the single-node settings the Kafka peer script gives Kafka.
  std::vector<std::string> spool_ov = o_.broker_overrides;
  if (!has_key(spool_ov, "group.initial.rebalance.delay.ms")) spool_ov.push_back("group.initial.rebalance.delay.ms=0");
  auto add = [&](std::string name, Kind kind, std::vector<std::string> ov, bool full, std::string description,
                 std::string guarantee) {
    auto d = std::make_unique<Deployment>();
    d->name = name;
    d->kind = kind;
    d->overrides = std::move(ov);
    d->full = full;
    deps_.push_back(std::move(d));
    r_->targets.push_back(TargetInfo{std::move(name), std::move(description), std::move(guarantee)});
  };
  const std::string extra = o_.broker_overrides.empty() ? "" : " (with the --broker-override settings)";
  add("spool", Kind::kSpool, spool_ov, true,
      o_.bootstrap.empty() ? "Spool, default configuration: durable.writes=true" + extra
                           : "Spool at --bootstrap " + o_.bootstrap + " (its own configuration)",
      "power loss: acks=all is answered, and any write becomes visible to consumers, only after its group-committed "
      "fsync");
  auto add_kafka = [&] {
    if (peer_ != "kafka") return;
    add("kafka", Kind::kKafka, {}, true, "Apache Kafka 4.4.0 as configured by default (scripts/kafka-peer)",
        "kill -9 of the broker, not power loss: acknowledged from the page cache; Kafka does not fsync by default "
        "(flushes are left to the OS)");
  };
  add_kafka();
  if (peer_ == "mock")
    add("mock", Kind::kMock, {}, true, peer_description() + " (in-process)",
        "nothing: the mock cluster keeps data in memory only");
  if (o_.bootstrap.empty()) {
    auto ov = spool_ov;
    ov.push_back("durable.writes=false");
    add("spool-nodurable", Kind::kSpool, ov, false, "Spool with durable.writes=false" + extra,
        "kill -9 of the broker, not power loss: acknowledged from the page cache (Kafka's semantics)");
  } else {
    add_note("--bootstrap: no spool-nodurable row (the bench cannot reconfigure a broker it did not start)");
  }
  if (peer_ == "kafka")
    add("kafka-flush1", Kind::kKafka, {kKafkaFlushOverride}, false,
        std::string("Apache Kafka 4.4.0 with flush.messages=1 (broker override ") + kKafkaFlushOverride + ")",
        "power loss: the log is fsynced after every append, before the produce is answered");

  if (peer_ == "kafka") {
    // A killed bench must not leave JVMs behind: the peer script stops its
    // broker once this process is gone.
    setenv("KAFKA_PEER_WATCH_PID", std::to_string(getpid()).c_str(), 1);
    std::string java = find_java();
    auto cp = kafka_classpath(kafka_script_);
    if (java.empty() || !cp || work_dir_.empty()) {
      tools_error_ = java.empty() ? "no java on $PATH" : !cp ? cp.status().message() : "no work dir";
    } else {
      JavaTools j{java, *cp, work_dir_ + "/log4j2-tools.xml", work_dir_ + "/kafka-tools.log"};
      if (auto st = write_log4j_config(j.log4j_file); !st) tools_error_ = st.message();
      else tools_ = j;
    }
  }
}

void Session::teardown() {
  cluster_.reset();
  for (auto& d : deps_) {
    if (d->broker) (void)stop_phase(*d);
  }
  if (!work_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(work_dir_, ec);
    work_dir_.clear();
  }
}

std::unique_ptr<ManagedBroker> Session::make_broker(const Deployment& d, const std::string& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (d.kind == Kind::kKafka) return std::make_unique<KafkaPeer>(kafka_script_, dir, d.overrides, dir + "/script.log");
  std::filesystem::create_directories(dir + "/data", ec);
  return std::make_unique<BrokerProcess>(exe_, dir + "/data", d.overrides, dir + "/broker.log");
}

Status Session::start_phase(Deployment& d, int rep) {
  d.target.reset();
  d.consume_filled = false;
  d.consume_topic.clear();
  if (d.kind == Kind::kSpool && !o_.bootstrap.empty()) {
    std::string bs = o_.bootstrap;
    d.target = Target{d.name, bs, "", [bs](const NewTopic& nt) { return create_topics(bs, {nt}, 60000); },
                      [bs](const std::string& name) { (void)delete_topics(bs, {name}, 30000); }};
    return Status::ok();
  }
  if (work_dir_.empty() || (d.kind == Kind::kSpool && exe_.empty())) return Status::error("no broker to start");
  d.phase_dir = work_dir_ + "/" + d.name + "-" + std::to_string(rep);
  d.broker = make_broker(d, d.phase_dir);
  if (auto st = d.broker->start(d.kind == Kind::kKafka ? 120 : 30); !st) {
    d.broker.reset();
    return st;
  }
  std::string bs = d.broker->bootstrap();
  std::string data = d.phase_dir + "/data";  // log.dirs of both brokers
  d.target = Target{d.name, bs, data, [bs](const NewTopic& nt) { return create_topics(bs, {nt}, 60000); },
                    [bs](const std::string& name) { (void)delete_topics(bs, {name}, 30000); }};
  return Status::ok();
}

Status Session::stop_phase(Deployment& d) {
  Status st = Status::ok();
  if (d.broker) st = d.broker->stop(60);
  d.broker.reset();
  d.target.reset();
  if (!d.phase_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(d.phase_dir, ec);
    d.phase_dir.clear();
  }
  return st;
}

void Session::plan_phase(Deployment& d, int rep, std::vector<Step>* steps) {
  const bool client = wants("client") && d.kind == Kind::kSpool && d.full;
  bool workloads =
      wants("produce") || wants("consume") || wants("latency") || (d.full && wants("kafka-tools")) || client;
  if (d.kind != Kind::kMock && workloads) {
    steps->push_back({"start " + d.name + " (run " + std::to_string(rep) + ")", [this, &d, rep]() -> Result<std::string> {
                        if (auto st = start_phase(d, rep); !st) return st;
                        return "serving on " + d.target->bootstrap;
                      }});
  }
  if (wants("produce")) plan_produce(d, rep, steps);
  if (wants("consume") && d.full) plan_consume(d, rep, steps);
  if (wants("latency")) plan_latency(d, rep, steps);
  if (wants("kafka-tools") && d.full && d.kind != Kind::kMock) plan_tools(d, rep, steps);
  if (client) plan_client(d, rep, steps);
  if (d.kind != Kind::kMock && workloads) {
    steps->push_back({"stop " + d.name + " (run " + std::to_string(rep) + ")", [this, &d]() -> Result<std::string> {
                        if (!d.broker && !d.target) return std::string("was not running");
                        if (auto st = stop_phase(d); !st) return st;
                        return std::string("stopped");
                      }});
  }
  bool own = d.kind == Kind::kKafka || (d.kind == Kind::kSpool && o_.bootstrap.empty());
  if (d.full && own && !work_dir_.empty()) plan_own_brokers(d, rep, steps);
}

void Session::plan_own_brokers(Deployment& d, int rep, std::vector<Step>* steps) {
  if (d.kind == Kind::kSpool && exe_.empty()) return;
  SpawnSpec spawn{work_dir_, [this, &d](const std::string& dir) { return make_broker(d, dir); }};
  if (wants("rss")) {
    steps->push_back({run_label("rss", d.name, rep), [this, spawn, &d]() -> Result<std::string> {
                        auto res = run_rss(spawn, z_.rss_topics, z_.rss_partitions_per_topic, progress_.get());
                        if (!res) return res.status();
                        record("rss/idle", d.name, "rss_MB", res->idle_MB);
                        record("rss/partitions=1000", d.name, "rss_MB", res->partitions_MB);
                        return "idle " + human_number(res->idle_MB) + " MB, 1000 partitions " +
                               human_number(res->partitions_MB) + " MB";
                      }});
  }
  if (wants("restart")) {
    std::string id = "restart/kill9/" + std::to_string(z_.restart_mb) + "MB";
    steps->push_back({run_label(id, d.name, rep), [this, spawn, id, &d]() -> Result<std::string> {
                        auto res = run_restart(spawn, z_.restart_mb, progress_.get());
                        if (!res) return res.status();
                        record(id, d.name, "seconds", *res);
                        return "serving after " + human_number(*res) + " s";
                      }});
  }
}

void Session::run_all() {
  std::vector<Step> steps;
  if (wants("machine")) plan_machine(&steps);
  for (int rep = 1; rep <= z_.repetitions; ++rep)
    for (auto& d : deps_) plan_phase(*d, rep, &steps);
  if (wants("security")) plan_security(&steps);
  if (wants("operability")) plan_operability(&steps);
  if (wants("cluster")) plan_cluster(&steps);
  add_plan_notes();

  progress_ = std::make_unique<Progress>(static_cast<int>(steps.size()));
  for (auto& step : steps) {
    progress_->begin(step.label);
    if (step.needs != nullptr && step.needs->kind != Kind::kMock && !step.needs->target) {
      progress_->done(step.label, "skipped: " + step.needs->name + " is not running");
      continue;
    }
    Result<std::string> res = step.run();
    if (res) {
      progress_->done(step.label, *res);
    } else {
      std::string msg = res.status().message();
      progress_->done(step.label, "FAILED: " + msg);
      add_note(step.label + " failed: " + msg);
    }
  }
  for (auto& d : deps_)
    if (d->broker) (void)stop_phase(*d);
  if (o_.profile) profile_missed_targets();
}

void Session::profile_missed_targets() {
  Deployment* spool = deps_.empty() ? nullptr : deps_.front().get();
  if (spool == nullptr || spool->kind != Kind::kSpool || !o_.bootstrap.empty() || exe_.empty()) {
    add_note("--profile needs the bench's own broker: no profiles");
    return;
  }
  std::vector<TargetCheck> checks = check_targets(*r_);
  auto missed = [&](const std::string& prefix) {
    for (const auto& c : checks)
      if (c.name.rfind(prefix, 0) == 0 && c.measured_ok && !c.met) return true;
    return false;
  };
  struct Probe {
    std::string check_prefix;  // TargetCheck::name prefix (targets.cc)
    std::string workload;
    std::function<Status(const Target&)> run;
  };
  auto produce = [this](ProduceSpec spec) {
    return [this, spec](const Target& t) -> Status {
      std::string topic = next_topic("profile");
      int64_t n = spec.size >= 1024 ? std::max<int64_t>(z_.messages / 4, 100) : z_.messages;
      auto res = run_produce(t, topic, spec, n, z_.duration_s, nullptr);
      t.drop_topic(topic);
      return res ? Status::ok() : res.status();
    };
  };
  std::vector<Probe> probes = {
      {"produce 100 B", "produce/100B/acks=1/p1/x1", produce({100, false, 1, 1})},
      {"produce 1 KB, acks=all", "produce/1KB/acks=all/p1/x1", produce({1024, true, 1, 1})},
      {"consume 1 KB", "consume/1KB/cached",
       [this](const Target& t) -> Status {
         std::string topic = next_topic("profile");
         auto fill = run_produce(t, topic, ProduceSpec{1024, false, 1, 1}, z_.consume_messages, 1e9, nullptr);
         if (!fill) return fill.status();
         auto res = run_consume(t, topic, z_.consume_messages, 300, nullptr);
         return res ? Status::ok() : res.status();
       }},
      {"end-to-end p99", "latency/100B/acks=1/in-flight=1",
       [this](const Target& t) -> Status {
         std::string topic = next_topic("profile");
         auto res = run_latency(t, topic, z_.latency_messages, 0, nullptr);
         t.drop_topic(topic);
         return res ? Status::ok() : res.status();
       }},
  };
  bool any = false;
  for (const auto& p : probes) any = any || missed(p.check_prefix);
  if (!any) return;
  if (auto st = start_phase(*spool, 0); !st) {
    add_note("--profile: the Spool broker did not start: " + st.message());
    return;
  }
  auto* broker = dynamic_cast<BrokerProcess*>(spool->broker.get());
  for (const auto& probe : probes) {
    if (!missed(probe.check_prefix) || broker == nullptr) continue;
    progress_->note("profiling the broker (perf) during " + probe.workload + " ...");
    auto rec = PerfRecording::start(broker->pid(), work_dir_ + "/perf.data");
    if (!rec) {
      add_note("profile of " + probe.workload + ": " + rec.status().message());
      break;  // perf itself is unusable: no point trying the others
    }
    Status ran = probe.run(*spool->target);
    auto summary = rec->stop_and_summarize(15);
    if (!ran) {
      add_note("profile of " + probe.workload + ": the extra run failed: " + ran.message());
    } else if (!summary) {
      add_note("profile of " + probe.workload + ": " + summary.status().message());
    } else {
      r_->profiles.push_back(Profile{probe.workload, *summary});
    }
  }
  (void)stop_phase(*spool);
}

}  // namespace spool::bench
