// Reassignment throughput through `spool topic reassign` (see
// cluster_workloads.h, run_reassign).
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/broker_process.h"
#include "bench/cluster_workloads.h"
#include "bench/kafka_peer.h"

namespace spool::bench {
namespace {

constexpr int kMessageBytes = 16 * 1024;
constexpr double kMoveTimeoutSeconds = 600;

Result<std::string> cli(const std::string& spool, std::vector<std::string> args, const std::string& log) {
  args.insert(args.begin(), spool);
  auto r = run_command(args, 120, log);
  if (!r) return r.status();
  if (r->exit_code != 0)
    return Status::error("spool " + args[1] + " " + args[2] + " " + args[3] + " exited " +
                         std::to_string(r->exit_code) + ": " + r->out.substr(0, 500) + file_tail(log, 500));
  return r->out;
}

}  // namespace

Result<ReassignResult> run_reassign(const std::string& spool, const std::string& bootstrap, const std::string& topic,
                                    int from, int to, int64_t mb, int64_t throttle_Bps, const std::string& work_dir,
                                    Progress* progress) {
  if (mb <= 0 || from == to) return Status::error("bad reassignment spec");
  NewTopic nt{topic, 1, {}, 1};
  nt.replica_assignment = {{from}};
  if (auto st = create_topics(bootstrap, {nt}, 60000); !st) return st;
  auto producer = Producer::create(throughput_producer_config(bootstrap, /*acks_all=*/false));
  if (!producer) return producer.status();
  Producer& p = **producer;
  if (auto st = wait_topic_ready(p.rk(), topic, 1, 30000); !st) return st;
  const std::string payload(kMessageBytes, 'r');
  const int64_t messages = mb * 1000 * 1000 / kMessageBytes;
  for (int64_t i = 0; i < messages; ++i)
    if (auto st = p.send(topic, 0, payload.data(), payload.size()); !st) return st;
  if (auto st = p.flush(300000); !st) return Status::error("filling " + topic + ": " + st.message());

  const std::string plan = work_dir + "/" + topic + ".json";
  {
    nlohmann::json part;
    part["topic"] = topic;
    part["partition"] = 0;
    part["replicas"] = std::vector<int>{to};
    nlohmann::json j;
    j["version"] = 1;
    j["partitions"] = nlohmann::json::array();
    j["partitions"].push_back(part);
    std::ofstream(plan) << j.dump();
  }
  const std::string log = work_dir + "/" + topic + ".log";
  const std::string one = bootstrap.substr(0, bootstrap.find(','));  // the CLI takes one address
  std::vector<std::string> execute = {"topic", "reassign", "--execute", "--reassignment-json-file", plan,
                                      "--bootstrap-server", one};
  if (throttle_Bps > 0) execute.insert(execute.end(), {"--throttle", std::to_string(throttle_Bps)});
  // The CLI reads the topic from one broker's metadata, which may not have
  // the UpdateMetadata of the new topic yet (as with Kafka's tool): retry
  // that case for a while. The move is timed from the attempt that worked.
  auto t0 = std::chrono::steady_clock::now();
  for (int attempt = 0;; ++attempt) {
    t0 = std::chrono::steady_clock::now();
    auto out = cli(spool, execute, log);
    if (out) break;
    if (attempt >= 60 || out.status().message().find("does not exist") == std::string::npos) return out.status();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  ReassignResult r;
  for (;;) {
    auto out = cli(spool,
                   {"topic", "reassign", "--verify", "--reassignment-json-file", plan, "--preserve-throttles",
                    "--output", "json", "--bootstrap-server", one},
                   log);
    if (!out) return out.status();
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto j = nlohmann::json::parse(*out, nullptr, false);
    if (!j.is_discarded() && j.value("complete", false)) {
      r.seconds = waited;
      break;
    }
    if (waited > kMoveTimeoutSeconds) return Status::error("the move was not complete after 600 s");
    if (progress) progress->live("moving " + std::to_string(mb) + " MB: " + human_number(waited) + " s");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // The plain --verify clears the throttles it set.
  (void)cli(spool, {"topic", "reassign", "--verify", "--reassignment-json-file", plan, "--bootstrap-server", one},
            log);
  r.bytes = messages * kMessageBytes;
  r.MB_per_s = static_cast<double>(r.bytes) / 1e6 / r.seconds;
  return r;
}

}  // namespace spool::bench
