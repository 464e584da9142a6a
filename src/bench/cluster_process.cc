// The bench's clusters: Spool on ZooKeeper, and the Kafka 4.4 KRaft peer
// (see cluster_process.h).
#include "bench/cluster_process.h"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "bench/rdk.h"

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point deadline_after(double s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// How many brokers `node`'s Metadata lists, or -1.
int listed_brokers(const std::string& node) {
  auto c = make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", node}, {"log_level", "0"}});
  if (!c) return -1;
  const rd_kafka_metadata_t* md = nullptr;
  if (rd_kafka_metadata(c->get(), 0, nullptr, &md, 2000) != RD_KAFKA_RESP_ERR_NO_ERROR || md == nullptr) return -1;
  int n = md->broker_cnt;
  rd_kafka_metadata_destroy(md);
  return n;
}

// `n` distinct free loopback ports.
Result<std::vector<int>> free_ports(int n) {
  std::set<int> seen;
  std::vector<int> out;
  for (int tries = 0; static_cast<int>(out.size()) < n && tries < 10 * n; ++tries) {
    auto p = free_loopback_port();
    if (!p) return p.status();
    if (seen.insert(*p).second) out.push_back(*p);
  }
  if (static_cast<int>(out.size()) < n) return Status::error("could not pick distinct free ports");
  return out;
}

}  // namespace

std::string ManagedCluster::bootstrap() const {
  std::string s;
  for (int i = 0; i < size(); ++i) s += (i ? "," : "") + node_bootstrap(i);
  return s;
}

Status wait_cluster_ready(const std::vector<std::string>& nodes, int n, double timeout_s) {
  auto deadline = deadline_after(timeout_s);
  std::string last;
  for (;;) {
    bool all = true;
    for (const auto& node : nodes) {
      int got = listed_brokers(node);
      if (got != n) {
        last = node + " listed " + (got < 0 ? std::string("nothing (no answer)") : std::to_string(got)) + " brokers";
        all = false;
        break;
      }
    }
    if (all) return Status::ok();
    if (Clock::now() > deadline) return Status::error("cluster not ready within " + std::to_string(timeout_s) +
                                                      " s: " + last + ", want " + std::to_string(n));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

Result<std::string> locate_zk_server(const std::string& exe) {
  return locate_repo_script("", "--zk-server", "SPOOL_ZK_SERVER", "tests/support/zk-server", exe);
}

// ---- Spool on ZooKeeper -------------------------------------------------------

SpoolCluster::SpoolCluster(std::string exe, std::string zk_server, std::string dir, int n,
                           std::vector<std::string> overrides)
    : ManagedCluster(n), exe_(std::move(exe)), zk_server_(std::move(zk_server)), dir_(std::move(dir)),
      overrides_(std::move(overrides)) {}

SpoolCluster::~SpoolCluster() {
  brokers_.clear();  // BrokerProcess SIGKILLs a running child
  if (zk_started_) (void)run_command({zk_server_, "kill9", dir_ + "/zk"}, 30, "");
}

std::string SpoolCluster::node_bootstrap(int i) const { return brokers_.at(static_cast<size_t>(i))->bootstrap(); }

std::vector<std::string> SpoolCluster::nodes() const {
  std::vector<std::string> v;
  for (int i = 0; i < n_; ++i) v.push_back(node_bootstrap(i));
  return v;
}

Status SpoolCluster::start(double timeout_s) {
  if (!brokers_.empty()) return Status::error("spool cluster already started");
  std::error_code ec;
  std::filesystem::create_directories(dir_ + "/zk", ec);
  auto zk = run_command({zk_server_, "start", dir_ + "/zk", "0"}, timeout_s + 30, dir_ + "/zk-server.log");
  if (!zk) return zk.status();
  if (zk->exit_code != 0)
    return Status::error("zk-server start failed (exit " + std::to_string(zk->exit_code) +
                         "): " + file_tail(dir_ + "/zk-server.log", 1500));
  zk_started_ = true;
  std::string connect = zk->out;
  while (!connect.empty() && (connect.back() == '\n' || connect.back() == '\r')) connect.pop_back();
  for (int i = 0; i < n_; ++i) {
    std::string bdir = dir_ + "/broker-" + std::to_string(i);
    std::filesystem::create_directories(bdir, ec);
    std::vector<std::string> ov = {"broker.id=" + std::to_string(i), "zookeeper.connect=" + connect};
    ov.insert(ov.end(), overrides_.begin(), overrides_.end());
    brokers_.push_back(std::make_unique<BrokerProcess>(exe_, bdir, ov, dir_ + "/broker-" + std::to_string(i) + ".log"));
  }
  for (auto& b : brokers_)
    if (auto st = b->start(timeout_s); !st) return Status::error(st.message() + "\n" + log_tail());
  if (auto st = wait_cluster_ready(nodes(), n_, timeout_s); !st) return Status::error(st.message() + "\n" + log_tail());
  return Status::ok();
}

void SpoolCluster::kill9(int i) { brokers_.at(static_cast<size_t>(i))->kill9(); }

Status SpoolCluster::terminate(int i, double timeout_s) { return brokers_.at(static_cast<size_t>(i))->stop(timeout_s); }

Status SpoolCluster::restart(int i, double timeout_s) {
  if (auto st = brokers_.at(static_cast<size_t>(i))->start(timeout_s); !st) return st;
  if (auto st = wait_cluster_ready(nodes(), n_, timeout_s); !st) return Status::error(st.message() + "\n" + log_tail());
  return Status::ok();
}

Status SpoolCluster::stop(double timeout_s) {
  // One at a time, each a controlled shutdown (leaders move to the rest).
  std::string bad;
  for (size_t i = 0; i < brokers_.size(); ++i)
    if (auto st = brokers_[i]->stop(timeout_s); !st) bad += " broker " + std::to_string(i) + ": " + st.message();
  if (zk_started_) {
    (void)run_command({zk_server_, "stop", dir_ + "/zk"}, 30, dir_ + "/zk-server.log");
    zk_started_ = false;
  }
  if (!bad.empty()) return Status::error("spool cluster stop:" + bad);
  return Status::ok();
}

std::string SpoolCluster::log_tail(size_t max_chars) const {
  std::string s;
  size_t each = max_chars / static_cast<size_t>(n_ + 1);
  for (size_t i = 0; i < brokers_.size(); ++i)
    s += "broker-" + std::to_string(i) + ".log: " + brokers_[i]->log_tail(each) + "\n";
  s += "zookeeper.log: " + file_tail(dir_ + "/zk/zookeeper.log", each);
  return s;
}

// ---- the Kafka 4.4 peer cluster -----------------------------------------------

KafkaPeerCluster::KafkaPeerCluster(std::string script, std::string dir, int n, std::vector<std::string> overrides)
    : ManagedCluster(n), script_(std::move(script)), dir_(std::move(dir)), overrides_(std::move(overrides)) {
  for (int i = 0; i < n_; ++i) {
    std::string node = dir_ + "/node-" + std::to_string(i);
    nodes_.push_back(std::make_unique<KafkaPeer>(script_, node, std::vector<std::string>{}, node + "/script.log"));
  }
}

KafkaPeerCluster::~KafkaPeerCluster() {
  if (started_) (void)run_command({script_, "cluster-kill9", dir_}, 120, "");
}

std::string KafkaPeerCluster::node_bootstrap(int i) const {
  return "127.0.0.1:" + std::to_string(ports_.at(static_cast<size_t>(i)));
}

Status KafkaPeerCluster::start(double timeout_s) {
  if (started_) return Status::error("kafka cluster already started");
  auto ports = free_ports(n_);
  if (!ports) return ports.status();
  ports_ = *ports;
  std::string list;
  for (int p : ports_) list += (list.empty() ? "" : ",") + std::to_string(p);
  std::vector<std::string> argv = {script_, "cluster-start", dir_, std::to_string(n_), list};
  argv.insert(argv.end(), overrides_.begin(), overrides_.end());
  started_ = true;
  auto r = run_command(argv, timeout_s + 60, dir_ + "/script.log");
  if (!r) return r.status();
  if (r->exit_code != 0)
    return Status::error("kafka-peer cluster-start failed (exit " + std::to_string(r->exit_code) + "):\n" +
                         file_tail(dir_ + "/script.log", 1000) + "\n" + log_tail());
  return Status::ok();
}

void KafkaPeerCluster::kill9(int i) {
  KafkaPeer& node = *nodes_.at(static_cast<size_t>(i));
  // The signal goes to the JVM first: the script's own start-up (bash) would
  // otherwise be counted in the failover time; the script then waits for the exit.
  if (pid_t pid = node.serving_pid(); pid > 0 && node.running()) ::kill(pid, SIGKILL);
  node.kill9();
}

Status KafkaPeerCluster::terminate(int i, double timeout_s) {
  KafkaPeer& node = *nodes_.at(static_cast<size_t>(i));
  // As kill9: the signal goes to the JVM at once, the script then waits.
  if (pid_t pid = node.serving_pid(); pid > 0 && node.running()) ::kill(pid, SIGTERM);
  return node.stop(timeout_s);
}

Status KafkaPeerCluster::restart(int i, double timeout_s) {
  auto r = run_command({script_, "node-start", dir_, std::to_string(i)}, timeout_s + 60, dir_ + "/script.log");
  if (!r) return r.status();
  if (r->exit_code != 0)
    return Status::error("kafka-peer node-start " + std::to_string(i) + " failed:\n" + log_tail());
  std::vector<std::string> all;
  for (int j = 0; j < n_; ++j) all.push_back(node_bootstrap(j));
  return wait_cluster_ready(all, n_, timeout_s);
}

Status KafkaPeerCluster::stop(double timeout_s) {
  if (!started_) return Status::ok();
  auto r = run_command({script_, "cluster-stop", dir_}, timeout_s + 30, dir_ + "/script.log");
  Status st = Status::ok();
  if (!r) st = r.status();
  else if (r->exit_code != 0)
    st = Status::error("kafka-peer cluster-stop failed:\n" + file_tail(dir_ + "/script.log", 800));
  if (!st) (void)run_command({script_, "cluster-kill9", dir_}, 120, "");
  started_ = false;
  return st;
}

std::string KafkaPeerCluster::log_tail(size_t max_chars) const {
  std::string s;
  for (size_t i = 0; i < nodes_.size(); ++i)
    s += "node-" + std::to_string(i) + ": " + nodes_[i]->log_tail(max_chars / nodes_.size()) + "\n";
  return s;
}

}  // namespace spool::bench
