#include "bench/runner.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <thread>

#include "bench/broker_process.h"
#include "bench/kafka_peer.h"
#include "bench/peer_cluster.h"
#include "bench/report.h"
#include "bench/runner_session.h"
#include "bench/targets.h"

namespace spool::bench {
namespace {

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_description() {
  char name[256] = "unknown";
  gethostname(name, sizeof name - 1);
  utsname u{};
  std::string kernel = uname(&u) == 0 ? std::string(u.sysname) + " " + u.release : "unknown kernel";
  return std::string(name) + ", " + std::to_string(std::thread::hardware_concurrency()) + " cores, " + kernel;
}

// `git describe` of the tree the binary was built in (<repo>/build*/spool),
// or "unknown" when that is not a git checkout.
// (or of the current directory when the binary was copied elsewhere).
std::string spool_version(const std::string& exe) {
  std::filesystem::path repo = std::filesystem::path(exe).parent_path().parent_path();
  for (const std::string& dir : {repo.string(), std::string(".")}) {
    std::string cmd = "git -C '" + dir + "' describe --always --dirty 2>/dev/null";
    std::string out;
    if (FILE* f = popen(cmd.c_str(), "r")) {
      char buf[128];
      while (std::fgets(buf, sizeof buf, f)) out += buf;
      pclose(f);
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    if (!out.empty()) return out;
  }
  return "unknown";
}

bool valid_host_port(const std::string& s) {
  auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) return false;
  std::string port = s.substr(colon + 1);
  if (port.size() > 5 || !std::all_of(port.begin(), port.end(), ::isdigit)) return false;
  int p = std::stoi(port);
  return p > 0 && p < 65536;
}

}  // namespace

Status validate_bench_options(const BenchOptions& o) {
  if (!o.bootstrap.empty() && !valid_host_port(o.bootstrap))
    return Status::error("--bootstrap must be host:port, got '" + o.bootstrap + "'");
  if (!o.bootstrap.empty() && !o.broker_overrides.empty())
    return Status::error("--broker-override needs the bench's own broker (not --bootstrap)");
  for (const auto& ov : o.broker_overrides)
    if (ov.find('=') == std::string::npos || ov.front() == '=')
      return Status::error("--broker-override must be key=value, got '" + ov + "'");
  if (o.output_dir.empty()) return Status::error("--output-dir must not be empty");
  if (o.repetitions && (*o.repetitions < 1 || *o.repetitions > 100))
    return Status::error("--repetitions must be in [1, 100]");
  if (o.messages && (*o.messages < 100 || *o.messages > 1000000000))
    return Status::error("--messages must be in [100, 1e9]");
  if (o.duration_s && !(*o.duration_s > 0 && *o.duration_s <= 3600))
    return Status::error("--duration must be in (0, 3600] seconds");
  if (o.restart_mb && (*o.restart_mb < 1 || *o.restart_mb > 1000000))
    return Status::error("--restart-mb must be in [1, 1000000]");
  if (o.latency_messages && (*o.latency_messages < 10 || *o.latency_messages > 10000000))
    return Status::error("--latency-messages must be in [10, 1e7]");
  if (o.latency_rate && (*o.latency_rate < 1 || *o.latency_rate > 1000000))
    return Status::error("--latency-rate must be in [1, 1e6] msg/s");
  for (const auto& w : o.workloads) {
    const bool family = std::find(kWorkloadFamilies.begin(), kWorkloadFamilies.end(), w) != kWorkloadFamilies.end();
    const bool cluster_one = w.rfind("cluster/", 0) == 0 &&
                             std::find(kClusterWorkloads.begin(), kClusterWorkloads.end(), w.substr(8)) !=
                                 kClusterWorkloads.end();
    const bool security_one = w.rfind("security/", 0) == 0 &&
                              std::find(kSecurityWorkloads.begin(), kSecurityWorkloads.end(), w.substr(9)) !=
                                  kSecurityWorkloads.end();
    const bool operability_one =
        w.rfind("operability/", 0) == 0 &&
        std::find(kOperabilityWorkloads.begin(), kOperabilityWorkloads.end(), w.substr(12)) !=
            kOperabilityWorkloads.end();
    if (!family && !cluster_one && !security_one && !operability_one)
      return Status::error("unknown workload '" + w +
                           "' (known: machine, produce, consume, latency, rss, restart, kafka-tools, client, cluster, "
                           "security, operability, cluster/<failover|produce|lag|txn|coordinator-failover|"
                           "controlled-shutdown|reassign>, security/<tls-consume|sasl-ssl-produce|authorizer> and "
                           "operability/<scrape|admin-1000-partitions|console-1000-partitions>)");
  }
  for (const auto& ov : o.broker_overrides)
    if (ov.rfind("admin.listener=", 0) == 0)
      return Status::error("--broker-override admin.listener: the bench sets admin.listener itself (off, or a free "
                           "loopback port for the operability family)");
  if (o.client != "librdkafka" && o.client != "native")
    return Status::error("--client must be librdkafka or native, got '" + o.client + "'");
  if (!o.peer.empty() && o.peer != "kafka" && o.peer != "mock")
    return Status::error("--peer must be kafka or mock, got '" + o.peer + "'");
  if (o.skip_peer && !o.peer.empty()) return Status::error("--skip-peer and --peer exclude each other");
  return Status::ok();
}

Result<PeerChoice> choose_peer(const BenchOptions& o, bool java_found, bool script_found,
                               const std::string& script_error) {
  if (o.skip_peer) return PeerChoice{"none", ""};
  if (o.peer == "mock") return PeerChoice{"mock", ""};
  if (o.peer == "kafka") {
    if (!java_found) return Status::error("--peer kafka: no java on $PATH (scripts/kafka-peer fetch installs one)");
    if (!script_found) return Status::error("--peer kafka: " + script_error);
    return PeerChoice{"kafka", ""};
  }
  if (java_found && script_found) return PeerChoice{"kafka", ""};
  return PeerChoice{"mock", std::string("peer: librdkafka's mock cluster, because the Kafka peer is unavailable (") +
                                (java_found ? script_error : "no java on $PATH") +
                                "); install Java and run scripts/kafka-peer fetch for --peer kafka"};
}

Result<PeerChoice> resolve_peer(const BenchOptions& o) {
  auto exe = self_executable();
  auto script = locate_kafka_peer(o.kafka_peer, exe ? *exe : std::string());
  bool java = !find_java().empty();
  auto c = choose_peer(o, java, script.is_ok(), script ? std::string() : script.status().message());
  if (!c || c->peer != "kafka") return c;
  // The jars must be there too (fetching may install packages: not the bench's business).
  if (auto cp = kafka_classpath(*script); !cp) {
    if (o.peer == "kafka") return Status::error("--peer kafka: " + cp.status().message());
    return PeerChoice{"mock", "peer: librdkafka's mock cluster, because the Kafka peer is unavailable (" +
                                  cp.status().message() + ")"};
  }
  return c;
}

Sizes resolve_sizes(const BenchOptions& o) {
  Sizes z;
  if (o.quick) {
    z.repetitions = 1;
    z.messages = 20000;
    z.duration_s = 1;
    z.consume_messages = 10000;
    z.restart_mb = 8;
    z.latency_messages = 100;
    z.latency_rate = 1000;
    z.loopback_seconds = 0.3;
    z.disk_bytes = 16LL << 20;
    z.disk_bytes_fdatasync = 8LL << 20;
    z.tool_records_100B = 20000;
    z.tool_records_1KB = 5000;
  }
  if (o.repetitions) z.repetitions = *o.repetitions;
  if (o.messages) {
    z.messages = *o.messages;
    z.consume_messages = std::max<int64_t>(*o.messages / 3, 10);
    z.tool_records_100B = std::max<int64_t>(*o.messages / 3, 10);
    z.tool_records_1KB = std::max<int64_t>(*o.messages / 12, 10);
  }
  if (o.duration_s) z.duration_s = *o.duration_s;
  if (o.restart_mb) z.restart_mb = *o.restart_mb;
  if (o.latency_messages) z.latency_messages = *o.latency_messages;
  if (o.latency_rate) z.latency_rate = *o.latency_rate;
  return z;
}

BenchOutcome run_bench(const BenchOptions& o) {
  BenchOutcome out;
  Sizes z = resolve_sizes(o);
  Report& r = out.report;
  r.started_at = iso_now();
  r.host = host_description();
  r.repetitions = z.repetitions;
  auto exe = self_executable();
  r.spool_version = exe ? spool_version(*exe) : "unknown";
  auto choice = resolve_peer(o);
  if (!choice) {
    out.error = choice.status().message();
    return out;
  }
  std::string script;
  if (choice->peer == "kafka") script = *locate_kafka_peer(o.kafka_peer, exe ? *exe : std::string());
  r.peer = choice->peer == "kafka"  ? "Apache Kafka 4.4.0, single-node KRaft (" + script + ")"
           : choice->peer == "mock" ? peer_description() + " (in-process)"
                                    : "none (--skip-peer)";
  if (std::any_of(o.workloads.begin(), o.workloads.end(),
                  [](const std::string& w) { return w == "cluster" || w.rfind("cluster/", 0) == 0; }))
    r.peer += choice->peer == "kafka" ? "; cluster family: Apache Kafka 4.4.0, 3 KRaft nodes (kafka-peer cluster-start)"
                                      : "; cluster family: Spool only (no Kafka cluster without --peer kafka)";
  if (std::any_of(o.workloads.begin(), o.workloads.end(),
                  [](const std::string& w) { return w == "operability" || w.rfind("operability/", 0) == 0; }))
    r.peer += "; operability family: Spool only (Kafka has no admin HTTP listener)";

  Session s(o, z, &r, choice->peer, script);
  if (!choice->why.empty()) s.add_note(choice->why);
  if (!exe) s.add_note("spool executable not found (" + exe.status().message() + "): no private broker");
  // The broker is exec'd through /proc/self/exe, which stays valid even if
  // the binary is rebuilt (replaced) while the bench runs.
  s.setup(exe ? std::string("/proc/self/exe") : std::string());
  s.run_all();
  s.teardown();

  for (const auto& m : r.measurements)
    if (!m.runs.empty()) ++out.measured;
  out.checks = check_targets(r);
  std::string md;
  Status st = write_report(r, out.checks, o.output_dir, &md);
  if (st) {
    out.report_written = true;
    out.markdown_path = md;
  } else {
    out.error = st.message();
  }
  return out;
}

}  // namespace spool::bench
