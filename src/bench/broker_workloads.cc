// Workloads that own a private broker process (Spool or the Kafka peer,
// through ManagedBroker): resident set size (idle and with many partitions)
// and restart after kill -9.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "bench/broker_process.h"
#include "bench/workloads.h"

namespace spool::bench {
namespace {

using Clock = std::chrono::steady_clock;

// A fresh dir for one private broker; removed with the object.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& parent) {
    std::string tmpl = parent + "/broker-XXXXXX";
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Status with_log(const Status& st, const ManagedBroker& b) {
  return Status::error(st.message() + "\nbroker log tail:\n" + b.log_tail(1500));
}

}  // namespace

Result<RssResult> run_rss(const SpawnSpec& spawn, int topics, int partitions_per_topic, Progress* progress) {
  ScratchDir dir(spawn.work_dir);
  if (dir.path().empty()) return Status::error("cannot create a dir under " + spawn.work_dir);
  std::unique_ptr<ManagedBroker> owned = spawn.make(dir.path());
  ManagedBroker& b = *owned;
  if (auto st = b.start(120); !st) return st;
  // Let start-up work (recovery threads, first timers) settle before reading.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  RssResult r;
  auto idle = process_rss_MB(b.serving_pid());
  if (!idle) return idle.status();
  r.idle_MB = *idle;
  if (partitions_per_topic <= 0) {
    if (auto st = b.stop(60); !st) return with_log(st, b);
    return r;
  }

  std::vector<NewTopic> nts;
  for (int i = 0; i < topics; ++i) nts.push_back(NewTopic{"rss-" + std::to_string(i), partitions_per_topic, {}});
  if (progress) progress->live("creating " + std::to_string(topics * partitions_per_topic) + " partitions");
  if (auto st = create_topics(b.bootstrap(), nts, 120000); !st) return with_log(st, b);
  auto p = Producer::create({{"bootstrap.servers", b.bootstrap()}, {"acks", "1"}, {"linger.ms", "5"}});
  if (!p) return p.status();
  char one[100] = {};
  for (const auto& t : nts) {
    if (auto st = wait_topic_ready((*p)->rk(), t.name, partitions_per_topic, 60000); !st) return with_log(st, b);
    for (int part = 0; part < partitions_per_topic; ++part)
      if (auto st = (*p)->send(t.name, part, one, sizeof one); !st) return st;
  }
  if (auto st = (*p)->flush(120000); !st) return with_log(st, b);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  auto loaded = process_rss_MB(b.serving_pid());
  if (!loaded) return loaded.status();
  r.partitions_MB = *loaded;
  p->reset();
  if (auto st = b.stop(60); !st) return with_log(st, b);
  return r;
}

Result<double> run_restart(const SpawnSpec& spawn, int64_t mb, Progress* progress) {
  ScratchDir dir(spawn.work_dir);
  if (dir.path().empty()) return Status::error("cannot create a dir under " + spawn.work_dir);
  std::unique_ptr<ManagedBroker> owned = spawn.make(dir.path());
  ManagedBroker& b = *owned;
  if (auto st = b.start(120); !st) return st;
  const std::string topic = "restart";
  if (auto st = create_topics(b.bootstrap(), {NewTopic{topic, 1, {}}}, 30000); !st) return with_log(st, b);
  {
    auto p = Producer::create({{"bootstrap.servers", b.bootstrap()},
                               {"acks", "all"},
                               {"linger.ms", "5"},
                               {"batch.size", "1000000"},
                               {"queue.buffering.max.kbytes", "1048576"},
                               {"message.timeout.ms", "300000"}});
    if (!p) return p.status();
    std::string payload(1024, 'r');
    int64_t count = mb * 1000000 / 1024;
    for (int64_t i = 0; i < count; ++i) {
      if (auto st = (*p)->send(topic, 0, payload.data(), payload.size()); !st) return st;
      if ((i & 1023) == 1023) {
        rd_kafka_poll((*p)->rk(), 0);
        if (progress) progress->live("writing " + std::to_string(i * 1024 / 1000000) + "/" + std::to_string(mb) + " MB");
      }
    }
    if (auto st = (*p)->flush(600000); !st) return with_log(st, b);
  }
  b.kill9();

  auto t0 = Clock::now();
  if (auto st = b.start_listening(300); !st) return with_log(st, b);
  // The clients are created after the port accepts, as a user restarting
  // their producer would; backoffs are short so retry waits don't dominate.
  auto p = Producer::create({{"bootstrap.servers", b.bootstrap()},
                             {"acks", "1"},
                             {"linger.ms", "0"},
                             {"retry.backoff.ms", "10"},
                             {"reconnect.backoff.ms", "10"},
                             {"reconnect.backoff.max.ms", "100"},
                             {"message.timeout.ms", "300000"}});
  if (!p) return p.status();
  char one[100] = {};
  if (auto st = (*p)->send(topic, 0, one, sizeof one); !st) return st;
  if (auto st = (*p)->flush(300000); !st) return with_log(st, b);
  double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  p->reset();
  if (auto st = b.finish_start(120); !st) return with_log(st, b);
  if (auto st = b.stop(60); !st) return with_log(st, b);
  return seconds;
}

}  // namespace spool::bench
