// Consume throughput from the broker's log: one librdkafka consumer reading
// partition 0 from the beginning, plus dropping the log's pages from the
// page cache for the cold variant.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "bench/workloads.h"

namespace spool::bench {

using Clock = std::chrono::steady_clock;

Result<int> drop_page_cache(const std::string& dir) {
  std::error_code ec;
  int dropped = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    int fd = open(it->path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;  // removed meanwhile (e.g. a deleted topic)
    // DONTNEED only evicts clean pages: write dirty ones back first.
    fdatasync(fd);
    if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0) ++dropped;
    close(fd);
  }
  if (ec) return Status::error("walking " + dir + ": " + ec.message());
  return dropped;
}

Result<Throughput> run_consume(const Target& t, const std::string& topic, int64_t messages, double timeout_s,
                               Progress* progress) {
  // Settings of a throughput-minded consumer (as in kbench.c): big fetches,
  // a deep local queue, no offset commits.
  KafkaConfig config = {{"bootstrap.servers", t.bootstrap},
                        {"group.id", "spool-bench"},
                        {"enable.auto.commit", "false"},
                        {"auto.offset.reset", "earliest"},
                        {"fetch.max.bytes", "52428800"},
                        {"max.partition.fetch.bytes", "10485760"},
                        {"queued.max.messages.kbytes", "1048576"}};
  config.insert(config.end(), t.client.begin(), t.client.end());
  auto c = make_client(RD_KAFKA_CONSUMER, config);
  if (!c) return c.status();
  rd_kafka_t* rk = c->get();
  // Warm-up, untimed: the connection and the topic's metadata.
  if (auto st = wait_topic_ready(rk, topic, 1, 30000); !st) return st;

  auto t0 = Clock::now();
  if (auto st = assign_partition(rk, topic, 0, RD_KAFKA_OFFSET_BEGINNING); !st) return st;

  // The clock starts at the first message, as in kbench.c: librdkafka's
  // consumer start-up (offset lookup, ~0.5 s against any broker, the mock
  // included) is client time, not broker throughput.
  Throughput r;
  auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  auto last = t0;
  bool started = false;
  std::string first_error;
  while (r.messages < messages && Clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (!started) {
        started = true;
        t0 = Clock::now();
      }
      ++r.messages;
      r.bytes += static_cast<int64_t>(m->len);
      last = Clock::now();
      if (progress && (r.messages & 8191) == 0)
        progress->live(human_number(static_cast<double>(r.messages)) + " msgs read");
    } else if (first_error.empty() && m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      first_error = rd_kafka_message_errstr(m);
    }
    rd_kafka_message_destroy(m);
  }
  r.seconds = std::chrono::duration<double>(last - t0).count();
  if (r.messages < messages)
    return Status::error("read " + std::to_string(r.messages) + " of " + std::to_string(messages) + " messages in " +
                         std::to_string(timeout_s) + " s" + (first_error.empty() ? "" : " (" + first_error + ")"));
  return r;
}

}  // namespace spool::bench
