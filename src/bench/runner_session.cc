#include "bench/runner_session.h"

#include <cstdlib>
#include <filesystem>

#include "bench/machine_limits.h"
#include "bench/peer_cluster.h"
#include "bench/perf_profile.h"
#include "bench/targets.h"

namespace spool::bench {
namespace {

constexpr int64_t kPeerConsumeMessages = 4000;
constexpr int kPeerLatencyMessages = 500;

std::string fmt_rate(const Throughput& t) {
  return human_number(t.msgs_per_s()) + " msg/s, " + human_number(t.MB_per_s()) + " MB/s";
}

std::string fmt_latency(const LatencySummary& l) {
  return "p50 " + human_number(l.p50_us) + " us, p99 " + human_number(l.p99_us) + " us, p99.9 " +
         human_number(l.p999_us) + " us, max " + human_number(l.max_us) + " us";
}

// The standard produce set covers every issue-7 target and each dimension
// (size, acks, partitions, producers) at least once; --all-combos runs all 16.
std::vector<ProduceSpec> produce_specs(bool quick, bool all) {
  if (quick) return {{100, false, 1, 1}, {1024, false, 1, 1}, {1024, true, 1, 1}};
  std::vector<ProduceSpec> v;
  if (all) {
    for (int size : {100, 1024})
      for (bool acks_all : {false, true})
        for (int p : {1, 16})
          for (int x : {1, 4}) v.push_back({size, acks_all, p, x});
    return v;
  }
  return {{100, false, 1, 1},  {100, true, 1, 1},  {1024, false, 1, 1}, {1024, true, 1, 1},
          {100, false, 16, 1}, {100, false, 1, 4}, {1024, false, 16, 4}, {1024, true, 16, 4}};
}

}  // namespace

Session::Session(const BenchOptions& o, const Sizes& z, Report* report) : o_(o), z_(z), r_(report) {}

Session::~Session() { teardown(); }

void Session::add_note(const std::string& line) {
  // Notes are single lines in the report (a broker log tail is multi-line).
  std::string flat;
  for (char c : line) flat += (c == '\n' || c == '\r') ? ' ' : c;
  if (flat.size() > 800) flat = flat.substr(0, 800) + "...";
  r_->notes.push_back(flat);
}

bool Session::wants(const std::string& family) const {
  return o_.workloads.empty() ||
         std::find(o_.workloads.begin(), o_.workloads.end(), family) != o_.workloads.end();
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

std::string Session::next_topic(const std::string& prefix) { return "bench-" + prefix + "-" + std::to_string(++topic_seq_); }

std::string Session::run_label(const std::string& workload, const std::string& target, int rep) const {
  return workload + " " + target + " run " + std::to_string(rep) + "/" + std::to_string(z_.repetitions);
}

Result<std::string> Session::with_peer(const std::function<Result<std::string>(const Target&)>& fn) {
  auto peer = PeerCluster::create();
  if (!peer) return peer.status();
  PeerCluster* pc = peer->get();
  Target t{"peer", pc->bootstrap(), "",
           [pc](const NewTopic& nt) { return pc->create_topic(nt.name, nt.partitions); },
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
    add_note("cannot create a work dir under " + parent + ": Spool's own broker, RSS, restart and disk limits skipped");
  } else {
    work_dir_ = tmpl;
  }
  if (!o_.bootstrap.empty()) {
    std::string bs = o_.bootstrap;
    spool_ = Target{"spool", bs, "", [bs](const NewTopic& nt) { return create_topics(bs, {nt}, 60000); },
                    [bs](const std::string& name) { (void)delete_topics(bs, {name}, 30000); }};
    add_note("Spool at --bootstrap " + bs + " (not started by the bench): consume/cold, rss and restart skipped");
    return;
  }
  if (work_dir_.empty() || exe_.empty()) return;
  std::filesystem::create_directories(work_dir_ + "/data", ec);
  broker_ = std::make_unique<BrokerProcess>(exe_, work_dir_ + "/data", o_.broker_overrides, work_dir_ + "/broker.log");
  if (auto st = broker_->start(30); !st) {
    add_note("spool broker did not start, Spool workloads skipped: " + st.message());
    broker_.reset();
    return;
  }
  std::string bs = broker_->bootstrap();
  spool_ = Target{"spool", bs, work_dir_ + "/data", [bs](const NewTopic& nt) { return create_topics(bs, {nt}, 60000); },
                  [bs](const std::string& name) { (void)delete_topics(bs, {name}, 30000); }};
}

void Session::teardown() {
  if (broker_) {
    if (auto st = broker_->stop(30); !st) add_note("spool broker shutdown: " + st.message());
    broker_.reset();
  }
  if (!work_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(work_dir_, ec);
    work_dir_.clear();
  }
}

void Session::plan_machine(std::vector<Step>* steps) {
  for (int rep = 1; rep <= z_.repetitions; ++rep) {
    steps->push_back({run_label("machine/loopback", "machine", rep), [this]() -> Result<std::string> {
                        auto v = loopback_MBps(z_.loopback_seconds);
                        if (!v) return v.status();
                        record("machine/loopback", "machine", "MB_per_s", *v);
                        return human_number(*v) + " MB/s";
                      }});
    if (work_dir_.empty()) continue;
    for (bool sync : {false, true}) {
      std::string id = sync ? "machine/disk-write-fdatasync" : "machine/disk-write";
      steps->push_back({run_label(id, "machine", rep), [this, id, sync]() -> Result<std::string> {
                          auto v = disk_write_MBps(work_dir_, sync ? z_.disk_bytes_fdatasync : z_.disk_bytes, sync);
                          if (!v) return v.status();
                          record(id, "machine", "MB_per_s", *v);
                          return human_number(*v) + " MB/s";
                        }});
    }
  }
}

void Session::plan_produce(std::vector<Step>* steps) {
  for (const ProduceSpec& spec : produce_specs(o_.quick, o_.all_combos)) {
    std::string id = produce_workload_id(spec);
    int64_t n = spec.size >= 1024 ? std::max<int64_t>(z_.messages / 4, 100) : z_.messages;
    for (int rep = 1; rep <= z_.repetitions; ++rep) {
      auto body = [this, spec, id, n](const Target& t) -> Result<std::string> {
        std::string topic = next_topic("produce");
        auto res = run_produce(t, topic, spec, n, z_.duration_s, progress_.get());
        t.drop_topic(topic);
        if (!res) return res.status();
        record(id, t.name, "msgs_per_s", res->msgs_per_s());
        record(id, t.name, "MB_per_s", res->MB_per_s());
        return fmt_rate(*res);
      };
      if (spool_) steps->push_back({run_label(id, "spool", rep), [this, body] { return body(*spool_); }});
      if (!o_.skip_peer) steps->push_back({run_label(id, "peer", rep), [this, body] { return with_peer(body); }});
    }
  }
}

void Session::plan_consume(std::vector<Step>* steps) {
  const int64_t n = z_.consume_messages;
  auto fill = [](const Target& t, const std::string& topic, int64_t n) -> Status {
    ProduceSpec spec{1024, false, 1, 1};
    auto res = run_produce(t, topic, spec, n, 1e9, nullptr);
    if (!res) return Status::error("prefill: " + res.status().message());
    if (res->messages < n) return Status::error("prefill delivered only " + std::to_string(res->messages));
    return Status::ok();
  };
  auto read = [this](const Target& t, const std::string& topic, const std::string& id, int64_t n) -> Result<std::string> {
    auto res = run_consume(t, topic, n, 300, progress_.get());
    if (!res) return res.status();
    record(id, t.name, "msgs_per_s", res->msgs_per_s());
    record(id, t.name, "MB_per_s", res->MB_per_s());
    return fmt_rate(*res);
  };
  if (spool_) {
    // One log for every Spool run: written once, read back cached, then
    // read after its pages were dropped (cold), which caches it again.
    consume_topic_ = next_topic("consume");
    auto topic = std::make_shared<std::string>(consume_topic_);
    auto filled = std::make_shared<bool>(false);
    steps->push_back({"consume/1KB spool prefill " + human_number(static_cast<double>(n)) + " x 1 KB",
                      [this, topic, filled, fill, n]() -> Result<std::string> {
                        if (auto st = fill(*spool_, *topic, n); !st) return st;
                        *filled = true;
                        consume_filled_ = true;
                        return std::string("written");
                      }});
    for (int rep = 1; rep <= z_.repetitions; ++rep) {
      steps->push_back({run_label("consume/1KB/cached", "spool", rep), [this, topic, filled, read, n]() -> Result<std::string> {
                          if (!*filled) return Status::error("prefill failed");
                          return read(*spool_, *topic, "consume/1KB/cached", n);
                        }});
      if (spool_->data_dir.empty()) continue;
      steps->push_back({run_label("consume/1KB/cold", "spool", rep), [this, topic, filled, read, n]() -> Result<std::string> {
                          if (!*filled) return Status::error("prefill failed");
                          auto dropped = drop_page_cache(spool_->data_dir);
                          if (!dropped) return dropped.status();
                          return read(*spool_, *topic, "consume/1KB/cold", n);
                        }});
    }
  }
  if (o_.skip_peer) return;
  // The mock cluster keeps only the last ~5 MB of a partition (older
  // message sets are dropped), so the peer reads a log that fits.
  const int64_t peer_n = std::min<int64_t>(n, kPeerConsumeMessages);
  add_note("consume on the peer reads " + std::to_string(peer_n) +
           " x 1 KB: the mock cluster keeps only ~5 MB per partition; compare Spool's consume with the machine "
           "limits rather than with the peer");
  for (int rep = 1; rep <= z_.repetitions; ++rep) {
    steps->push_back({run_label("consume/1KB/cached", "peer", rep), [this, fill, read, peer_n]() -> Result<std::string> {
                        return with_peer([&](const Target& t) -> Result<std::string> {
                          std::string topic = next_topic("consume");
                          if (auto st = fill(t, topic, peer_n); !st) return st;
                          return read(t, topic, "consume/1KB/cached", peer_n);
                        });
                      }});
  }
}

void Session::plan_latency(std::vector<Step>* steps) {
  struct Variant {
    std::string id;
    int rate;
  };
  std::vector<Variant> variants = {{"latency/100B/acks=1/in-flight=1", 0},
                                   {"latency/100B/acks=1/rate=" + std::to_string(z_.latency_rate), z_.latency_rate}};
  for (const auto& v : variants) {
    for (int rep = 1; rep <= z_.repetitions; ++rep) {
      auto body = [this, v](const Target& t) -> Result<std::string> {
        std::string topic = next_topic("latency");
        // The mock answers an empty fetch only when fetch.wait.max.ms ran
        // out (no wake-up on produce), so many peer round trips take 100 ms.
        int n = t.name == "peer" ? std::min(z_.latency_messages, kPeerLatencyMessages) : z_.latency_messages;
        auto res = run_latency(t, topic, n, v.rate, progress_.get());
        t.drop_topic(topic);
        if (!res) return res.status();
        record(v.id, t.name, "p50_us", res->p50_us);
        record(v.id, t.name, "p99_us", res->p99_us);
        record(v.id, t.name, "p999_us", res->p999_us);
        record(v.id, t.name, "max_us", res->max_us);
        return fmt_latency(*res);
      };
      if (spool_) steps->push_back({run_label(v.id, "spool", rep), [this, body] { return body(*spool_); }});
      if (!o_.skip_peer) steps->push_back({run_label(v.id, "peer", rep), [this, body] { return with_peer(body); }});
    }
  }
}

void Session::plan_broker(std::vector<Step>* steps) {
  SpawnSpec spawn{exe_, work_dir_, o_.broker_overrides};
  if (wants("rss")) {
    for (int rep = 1; rep <= z_.repetitions; ++rep) {
      steps->push_back({run_label("rss", "spool", rep), [this, spawn]() -> Result<std::string> {
                          auto res = run_rss(spawn, z_.rss_topics, z_.rss_partitions_per_topic, progress_.get());
                          if (!res) return res.status();
                          record("rss/idle", "spool", "rss_MB", res->idle_MB);
                          record("rss/partitions=1000", "spool", "rss_MB", res->partitions_MB);
                          return "idle " + human_number(res->idle_MB) + " MB, 1000 partitions " +
                                 human_number(res->partitions_MB) + " MB";
                        }});
    }
  }
  if (wants("restart")) {
    std::string id = "restart/kill9/" + std::to_string(z_.restart_mb) + "MB";
    for (int rep = 1; rep <= z_.repetitions; ++rep) {
      steps->push_back({run_label(id, "spool", rep), [this, spawn, id]() -> Result<std::string> {
                          auto res = run_restart(spawn, z_.restart_mb, progress_.get());
                          if (!res) return res.status();
                          record(id, "spool", "seconds", *res);
                          return "serving after " + human_number(*res) + " s";
                        }});
    }
  }
}

void Session::run_all() {
  std::vector<Step> steps;
  if (wants("machine")) plan_machine(&steps);
  if (wants("produce")) plan_produce(&steps);
  if (wants("consume")) plan_consume(&steps);
  if (wants("latency")) plan_latency(&steps);
  bool own_broker = o_.bootstrap.empty() && !exe_.empty() && !work_dir_.empty();
  if (own_broker) plan_broker(&steps);

  if (wants("produce"))
    add_note(o_.all_combos ? "produce: all 16 combinations (100B/1KB x acks 1/all x p1/p16 x x1/x4)"
             : o_.quick    ? "produce (--quick): 100B acks=1 p1 x1, 1KB acks=1 p1 x1, 1KB acks=all p1 x1"
                           : "produce: standard subset of 8 combinations (--all-combos runs all 16)");
  add_note("acks=all on Spool writes to topics with flush.messages=1 (each append flushed); the mock peer keeps "
           "data in memory, so its acks=all is not durable");
  add_note("consume: timed from the first message to the last (as kbench.c), so librdkafka's consumer start-up "
           "(~0.5 s to the first message, the same against the mock) is left out; 1 KB values, 1 partition");
  add_note("consume/cold: before each run the bench fdatasyncs and posix_fadvise(DONTNEED)s every file of the "
           "broker's data dir (no root needed); the peer reads from memory, so it only has the cached variant");
  add_note("latency: producer (linger.ms=0) and consumer (fetch.wait.max.ms=100) in the bench process; the payload "
           "carries the send time, latency = receipt - send");
  if (wants("latency") && !o_.skip_peer)
    add_note("latency on the peer: at most " + std::to_string(kPeerLatencyMessages) +
             " messages per run (the mock has no long-poll wake-up, so its round trips often wait out "
             "fetch.wait.max.ms); compare Spool's latency with the goal rather than with the peer");
  add_note("restart: seconds from re-exec of the killed broker until a new librdkafka producer's Metadata + Produce "
           "round trip was acknowledged (client start-up included)");
  if (!own_broker) add_note("rss and restart need the bench's own broker: skipped");
  if (o_.skip_peer) add_note("--skip-peer: no peer runs, no Spool/peer ratios");

  if (o_.profile && !broker_) add_note("--profile needs the bench's own broker: no profiles");
  progress_ = std::make_unique<Progress>(static_cast<int>(steps.size()));
  for (auto& step : steps) {
    progress_->begin(step.label);
    Result<std::string> res = step.run();
    if (res) {
      progress_->done(step.label, *res);
    } else {
      std::string msg = res.status().message();
      progress_->done(step.label, "FAILED: " + msg);
      add_note(step.label + " failed: " + msg);
    }
  }
  if (o_.profile && broker_ && spool_) profile_missed_targets();
}

void Session::profile_missed_targets() {
  struct Probe {
    std::string check_prefix;  // TargetCheck::name prefix (targets.cc)
    std::string workload;
    std::function<Status()> run;
  };
  auto produce = [this](ProduceSpec spec) {
    return [this, spec]() -> Status {
      std::string topic = next_topic("profile");
      int64_t n = spec.size >= 1024 ? std::max<int64_t>(z_.messages / 4, 100) : z_.messages;
      auto res = run_produce(*spool_, topic, spec, n, z_.duration_s, nullptr);
      spool_->drop_topic(topic);
      return res ? Status::ok() : res.status();
    };
  };
  std::vector<Probe> probes = {
      {"produce 100 B", "produce/100B/acks=1/p1/x1", produce({100, false, 1, 1})},
      {"produce 1 KB acks=all", "produce/1KB/acks=all/p1/x1", produce({1024, true, 1, 1})},
      {"consume 1 KB", "consume/1KB/cached",
       [this]() -> Status {
         if (!consume_filled_) return Status::error("no consume log");
         auto res = run_consume(*spool_, consume_topic_, z_.consume_messages, 300, nullptr);
         return res ? Status::ok() : res.status();
       }},
      {"end-to-end latency", "latency/100B/acks=1/in-flight=1",
       [this]() -> Status {
         std::string topic = next_topic("profile");
         auto res = run_latency(*spool_, topic, z_.latency_messages, 0, nullptr);
         spool_->drop_topic(topic);
         return res ? Status::ok() : res.status();
       }},
  };
  std::vector<TargetCheck> checks = check_targets(*r_);
  for (const auto& probe : probes) {
    bool missed = false;
    for (const auto& c : checks)
      if (c.name.rfind(probe.check_prefix, 0) == 0 && c.measured_ok && !c.met) missed = true;
    if (!missed) continue;
    progress_->note("profiling the broker (perf) during " + probe.workload + " ...");
    auto rec = PerfRecording::start(broker_->pid(), work_dir_ + "/perf.data");
    if (!rec) {
      add_note("profile of " + probe.workload + ": " + rec.status().message());
      return;  // perf itself is unusable: no point trying the others
    }
    Status ran = probe.run();
    auto summary = rec->stop_and_summarize(15);
    if (!ran) {
      add_note("profile of " + probe.workload + ": the extra run failed: " + ran.message());
    } else if (!summary) {
      add_note("profile of " + probe.workload + ": " + summary.status().message());
    } else {
      r_->profiles.push_back(Profile{probe.workload, *summary});
    }
  }
}

}  // namespace spool::bench
