// The client family (Session::plan_client): Spool's native producer and
// consumer against librdkafka on the same Spool broker, in the same phase
// of each repetition: produce 100 B acks=1 and 1 KB acks=all, each client
// in turn (librdkafka first in odd repetitions, native first in even ones,
// so both share the machine's drift); consume of one log of 1 KB records,
// written once per repetition by librdkafka and then read whole from the
// beginning by each client in the same alternation (consumer_driver.h);
// and the producer memory probe (client_memory.h), alternating too.
// Workload ids:
//   client/produce/<100B|1KB>/acks=<1|all>/p1/<librdkafka|native>   msgs_per_s, MB_per_s
//   client/consume/1KB/<librdkafka|native>                          msgs_per_s, MB_per_s, first_record_ms
//   client/rss/partitions=<N>/<librdkafka|native>                   rss_KB
// targets.cc turns them into the native/librdkafka checks (ratio of the
// medians, goal >= 1.0x for throughput and <= 1.0x for memory).
#include <algorithm>
#include <memory>
#include <utility>

#include "bench/client_memory.h"
#include "bench/consumer_driver.h"
#include "bench/runner_session.h"

namespace spool::bench {

std::vector<std::string> Session::client_order(int rep) const {
  if (rep % 2 == 1) return {kClientLibrdkafka, kClientNative};
  return {kClientNative, kClientLibrdkafka};
}

void Session::plan_client(Deployment& d, int rep, std::vector<Step>* steps) {
  const ProduceSpec specs[] = {{100, false, 1, 1}, {1024, true, 1, 1}};
  for (ProduceSpec spec : specs) {
    const std::string base = "client/produce/" + std::string(spec.size == 1024 ? "1KB" : "100B") + "/acks=" +
                             (spec.acks_all ? "all" : "1") + "/p1";
    const int64_t n = spec.size >= 1024 ? std::max<int64_t>(z_.messages / 4, 100) : z_.messages;
    for (const std::string& client : client_order(rep)) {
      spec.client = client;
      const std::string id = base + "/" + client;
      steps->push_back({run_label(id, d.name, rep),
                        [this, spec, id, n, &d]() -> Result<std::string> {
                          return on(d, [&](const Target& t) -> Result<std::string> {
                            std::string topic = next_topic("client");
                            auto res = run_produce(t, topic, spec, n, z_.duration_s, progress_.get());
                            t.drop_topic(topic);
                            if (!res) return res.status();
                            record(id, d.name, "msgs_per_s", res->msgs_per_s());
                            record(id, d.name, "MB_per_s", res->MB_per_s());
                            return human_number(res->msgs_per_s()) + " msg/s, " + human_number(res->MB_per_s()) +
                                   " MB/s";
                          });
                        },
                        &d});
    }
  }
  plan_client_consume(d, rep, steps);
  if (exe_.empty()) return;  // the probe runs in a child of this executable
  const int parts = z_.client_rss_partitions;
  const std::string base = "client/rss/partitions=" + std::to_string(parts);
  steps->push_back({run_label(base, d.name, rep),
                    [this, base, parts, rep, &d]() -> Result<std::string> {
                      return on(d, [&](const Target& t) -> Result<std::string> {
                        std::string topic = next_topic("client-rss");
                        if (auto st = t.create_topic(NewTopic{topic, parts, {}}); !st) return st;
                        std::string line;
                        Status failed;
                        for (const std::string& client : client_order(rep)) {
                          auto res = run_client_rss(exe_, t, client, topic, parts, 120);
                          if (!res) {
                            failed = res.status();
                            break;
                          }
                          record(base + "/" + client, d.name, "rss_KB", res->delta_KB);
                          line += (line.empty() ? "" : ", ") + client + " " + human_number(res->delta_KB) + " KB";
                        }
                        t.drop_topic(topic);
                        if (!failed) return failed;
                        return line;
                      });
                    },
                    &d});
}

void Session::plan_client_consume(Deployment& d, int rep, std::vector<Step>* steps) {
  struct Log {
    std::string topic;
    int64_t records = 0;  // the log end offset: what each client must read
    bool filled = false;
  };
  auto log = std::make_shared<Log>();
  const int64_t n = z_.consume_messages;
  steps->push_back({"client/consume/1KB " + d.name + " prefill " + human_number(static_cast<double>(n)) + " x 1 KB",
                    [this, log, n, &d]() -> Result<std::string> {
                      log->topic = next_topic("client-consume");
                      auto res = run_produce(*d.target, log->topic, ProduceSpec{1024, false, 1, 1}, n, 1e9, nullptr);
                      if (!res) return Status::error("prefill: " + res.status().message());
                      if (res->messages != n)
                        return Status::error("prefill delivered " + std::to_string(res->messages) + " of " +
                                             std::to_string(n));
                      // n after run_produce's warm-up record (more if the producer duplicated some).
                      auto end = wait_log_end(*d.target, log->topic, n + 1, 30000);
                      if (!end) return end.status();
                      log->records = *end;
                      log->filled = true;
                      return human_number(static_cast<double>(*end)) + " records written";
                    },
                    &d});
  const std::vector<std::string> order = client_order(rep);
  for (size_t i = 0; i < order.size(); ++i) {
    const std::string client = order[i];
    const std::string id = "client/consume/1KB/" + client;
    const bool last = i + 1 == order.size();
    steps->push_back({run_label(id, d.name, rep),
                      [this, log, client, id, last, &d]() -> Result<std::string> {
                        if (!log->filled) {
                          if (last && !log->topic.empty()) d.target->drop_topic(log->topic);
                          return Status::error("prefill failed");
                        }
                        auto res = run_client_consume(*d.target, log->topic, client, log->records, 300,
                                                      progress_.get());
                        if (last) d.target->drop_topic(log->topic);
                        if (!res) return res.status();
                        record(id, d.name, "msgs_per_s", res->read.msgs_per_s());
                        record(id, d.name, "MB_per_s", res->read.MB_per_s());
                        record(id, d.name, "first_record_ms", res->first_record_s * 1e3);
                        return human_number(res->read.msgs_per_s()) + " msg/s, " +
                               human_number(res->read.MB_per_s()) + " MB/s (first record after " +
                               human_number(res->first_record_s * 1e3) + " ms)";
                      },
                      &d});
  }
}

void Session::add_client_notes() {
  if (o_.client != kClientLibrdkafka && wants("produce"))
    add_note("produce: --client " + o_.client + ": the produce family's producers are Spool's native producer "
             "(native_client.h: the same throughput settings in Java key names), on every broker");
  if (!wants("client")) return;
  add_note("client: native producer vs librdkafka on the same Spool broker (durable default), same phase, "
           "alternating which goes first per repetition; throughput settings of the produce workload for both "
           "(batch 1,000,000 B, linger.ms=5, 1 GiB queue, no compression, no idempotence: librdkafka's default); "
           "the native ProducerRecord owns its value, so the native driver copies each payload once more than "
           "librdkafka's");
  add_note("client/consume: one log of " + human_number(static_cast<double>(z_.consume_messages)) +
           " x 1 KB per repetition, written by librdkafka, then read whole from offset 0 (page-cached) by each "
           "client in turn with assign() (no group, no offset lookup), timed from assign() and the first poll to "
           "the last record (first_record_ms: the start-up part of that time); a short read, a gap or a repeated "
           "offset fails the run. librdkafka with its defaults "
           "(fetch.min.bytes=1, fetch.wait.max.ms=500, max.partition.fetch.bytes=1048576, fetch.max.bytes=52428800, "
           "check.crcs=false; a group.id its assign() needs, never joined); the native consumer with the same values "
           "in Java keys (fetch.min.bytes, fetch.max.wait.ms, max.partition.fetch.bytes, fetch.max.bytes, "
           "check.crcs=false) and Java's max.poll.records=500; the native ConsumerRecord owns a copy of its value");
  add_note("client/rss: VmRSS growth of a child process (`spool bench --client-rss-probe`) from before creating "
           "the producer (each library's defaults, acks=1, linger.ms=5, no idempotence) to 1 s after one 100 B "
           "record went to each of " + std::to_string(z_.client_rss_partitions) +
           " partitions and was flushed; includes the library's one-time start-up (threads, globals); KB = 1024 B");
}

}  // namespace spool::bench
