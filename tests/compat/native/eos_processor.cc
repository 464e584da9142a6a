// native_eos_processor: the exactly-once consume -> transform -> produce
// processor of tests/compat/test_eos_pipeline.py (spec and JSON events as
// there), built on Spool's native client: a read_committed Consumer in a
// group and a transactional Producer with send_offsets_to_transaction.
//
//   native_eos_processor '{"bootstrap": ..., "group": ..., "src": ..., "dst": ...,
//                          "txn_id": ..., "batch": N, "pause_s": S, "name": ...}'
//
// Events on stdout, one JSON object per line: started; produced {n} (a
// transaction is open, before the pause); committed {n, offsets}; error
// {error} (then exit 3); closed. SIGTERM ends the loop after the current
// transaction.
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "event_line.h"

#include "client/consumer/consumer.h"
#include "client/producer/producer.h"

namespace {

using spool::Status;
using spool::TopicPartition;
namespace client = spool::client;

constexpr int64_t kWaitMs = 60000;
std::atomic<bool> g_stop{false};

void emit(const nlohmann::json& event) { write_line(event.dump()); }

[[noreturn]] void fail(const std::string& what, const Status& s) {
  emit({{"event", "error"}, {"error", what + ": " + s.message()}});
  std::_Exit(3);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: native_eos_processor JSON\n";
    return 2;
  }
  const auto spec = nlohmann::json::parse(argv[1]);
  std::signal(SIGTERM, [](int) { g_stop = true; });
  const std::string bootstrap = spec["bootstrap"], group = spec["group"], src = spec["src"], dst = spec["dst"];
  const std::string name = spec.value("name", "native-proc");
  const int batch = spec["batch"];
  const double pause_s = spec["pause_s"];

  auto producer = client::Producer::create({{"bootstrap.servers", bootstrap},
                                            {"transactional.id", spec["txn_id"].get<std::string>()},
                                            {"linger.ms", "5"},
                                            {"transaction.timeout.ms", "10000"},
                                            {"client.id", name}});
  if (!producer) fail("producer", producer.status());
  // Before joining the group: fencing the previous incarnation aborts its
  // pending offsets, so the offsets fetched on assignment are stable.
  if (Status s = (*producer)->init_transactions(kWaitMs); !s) fail("init_transactions", s);
  auto consumer = client::Consumer::create({{"bootstrap.servers", bootstrap},
                                            {"group.id", group},
                                            {"isolation.level", "read_committed"},
                                            {"enable.auto.commit", "false"},
                                            {"auto.offset.reset", "earliest"},
                                            {"session.timeout.ms", "6000"},
                                            {"heartbeat.interval.ms", "1000"},
                                            {"max.poll.records", std::to_string(batch)},
                                            {"client.id", name}});
  if (!consumer) fail("consumer", consumer.status());
  if (Status s = (*consumer)->subscribe({src}); !s) fail("subscribe", s);
  emit({{"event", "started"}});
  while (!g_stop) {
    auto records = (*consumer)->poll(500);
    if (!records) fail("poll", records.status());
    if (records->empty()) continue;
    if (Status s = (*producer)->begin_transaction(); !s) fail("begin_transaction", s);
    std::map<TopicPartition, client::OffsetAndMetadata> next;
    for (const auto& r : *records) {
      client::ProducerRecord out;
      out.topic = dst;
      out.partition = r.partition;
      out.value = spool::Bytes{'o', 'u', 't', ':'};
      if (r.value) out.value->insert(out.value->end(), r.value->begin(), r.value->end());
      (*producer)->send(std::move(out));
      next[TopicPartition(src, r.partition)] = client::OffsetAndMetadata{r.offset + 1, -1, ""};
    }
    if (!(*producer)->flush(kWaitMs)) fail("flush", Status::error("timed out"));
    emit({{"event", "produced"}, {"n", records->size()}});
    std::this_thread::sleep_for(std::chrono::duration<double>(pause_s));
    client::ConsumerGroupMetadata gm{group, (*consumer)->generation(), (*consumer)->member_id(), std::nullopt};
    if (Status s = (*producer)->send_offsets_to_transaction(next, gm, kWaitMs); !s) fail("send_offsets", s);
    if (Status s = (*producer)->commit_transaction(kWaitMs); !s) fail("commit_transaction", s);
    nlohmann::json offsets = nlohmann::json::object();
    for (const auto& [tp, om] : next) offsets[std::to_string(tp.partition)] = om.offset;
    emit({{"event", "committed"}, {"n", records->size()}, {"offsets", offsets}});
  }
  (*consumer)->close();
  (*producer)->close();
  emit({{"event", "closed"}});
  return 0;
}
