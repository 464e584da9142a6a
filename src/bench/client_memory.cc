#include "bench/client_memory.h"

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include "bench/broker_process.h"
#include "bench/kafka_peer.h"
#include "bench/native_client.h"
#include "bench/workloads.h"

namespace spool::bench {
namespace {

Result<double> self_rss_KB() {
  auto mb = process_rss_MB(getpid());
  if (!mb) return mb.status();
  return *mb * 1e6 / 1024.0;
}

// Each library's defaults, with the same acks, linger and idempotence.
Result<std::unique_ptr<ProducerDriver>> default_producer(const std::string& client, const std::string& bootstrap) {
  if (client == kClientNative) {
    auto p = NativeProducer::create({{"bootstrap.servers", bootstrap},
                                     {"acks", "1"},
                                     {"linger.ms", "5"},
                                     {"enable.idempotence", "false"}});
    if (!p) return p.status();
    return std::unique_ptr<ProducerDriver>(std::move(*p));
  }
  if (client != kClientLibrdkafka) return Status::error("unknown client '" + client + "'");
  return make_rdk_driver({{"bootstrap.servers", bootstrap},
                          {"acks", "1"},
                          {"linger.ms", "5"},
                          {"enable.idempotence", "false"}});
}

double field(const std::string& out, const std::string& key) {
  auto at = out.find(key + "=");
  if (at == std::string::npos) return -1;
  std::istringstream in(out.substr(at + key.size() + 1));
  double v = -1;
  in >> v;
  return v;
}

}  // namespace

int client_rss_probe_main(const std::string& client, const std::string& bootstrap, const std::string& topic,
                          int partitions) {
  auto fail = [](const std::string& what) {
    std::cout << "client rss probe: " << what << std::endl;  // the parent reads stdout
    return 1;
  };
  auto before = self_rss_KB();
  if (!before) return fail(before.status().message());
  double after_kb = 0;
  {
    auto p = default_producer(client, bootstrap);
    if (!p) return fail(p.status().message());
    ProducerDriver& pr = **p;
    if (auto st = pr.wait_ready(topic, partitions, 30000); !st) return fail(st.message());
    const std::string payload(100, 'x');
    for (int part = 0; part < partitions; ++part)
      if (auto st = pr.send(topic, part, payload.data(), payload.size()); !st) return fail(st.message());
    if (auto st = pr.flush(60000); !st) return fail(st.message());
    std::this_thread::sleep_for(std::chrono::seconds(1));  // idle: lingering and answers are over
    auto after = self_rss_KB();
    if (!after) return fail(after.status().message());
    after_kb = *after;
  }
  std::cout << "rss_delta_kb=" << static_cast<int64_t>(after_kb - *before)
            << " rss_before_kb=" << static_cast<int64_t>(*before) << " rss_after_kb=" << static_cast<int64_t>(after_kb)
            << std::endl;
  return 0;
}

Result<ClientRss> run_client_rss(const std::string& exe, const Target& t, const std::string& client,
                                 const std::string& topic, int partitions, double timeout_s) {
  auto r = run_command({exe, "bench", "--client-rss-probe", client, "--bootstrap", t.bootstrap, "--client-rss-topic",
                        topic, "--client-rss-partitions", std::to_string(partitions)},
                       timeout_s, "");
  if (!r) return r.status();
  if (r->exit_code != 0 || field(r->out, "rss_delta_kb") < -1e12)
    return Status::error("client rss probe (" + client + ") exited " + std::to_string(r->exit_code) +
                         (r->timed_out ? " (timed out)" : "") + ": " + r->out);
  ClientRss out;
  out.delta_KB = field(r->out, "rss_delta_kb");
  out.before_KB = field(r->out, "rss_before_kb");
  if (out.before_KB <= 0) return Status::error("client rss probe (" + client + "): no figures in '" + r->out + "'");
  return out;
}

}  // namespace spool::bench
