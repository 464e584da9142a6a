// Thin RAII and error plumbing over librdkafka's C API for the bench
// workloads: configured client handles, a producer that counts its delivery
// reports, admin topic creation/deletion. Used exactly as an application
// would use librdkafka (no hooks into the broker).
// Ownership: RdkHandle destroys its rd_kafka_t (consumers are closed first).
// Threading: a Producer may be driven from one thread at a time; its
// counters are atomics read by any thread. Failure: Status with
// librdkafka's error text; nothing throws.
#pragma once

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace spool::bench {

using KafkaConfig = std::vector<std::pair<std::string, std::string>>;

struct RdkDeleter {
  void operator()(rd_kafka_t* rk) const;
};
using RdkHandle = std::unique_ptr<rd_kafka_t, RdkDeleter>;

// A consumer (RD_KAFKA_CONSUMER) or admin/producer client with `config`
// applied over librdkafka's defaults; consumers get poll_set_consumer.
Result<RdkHandle> make_client(rd_kafka_type_t type, const KafkaConfig& config);

// Producer with delivery-report counters. The producer keeps a pointer to
// itself as the conf opaque, so it is not movable.
class Producer {
 public:
  static Result<std::unique_ptr<Producer>> create(const KafkaConfig& config);
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  rd_kafka_t* rk() const { return rk_.get(); }
  // Enqueues one message (payload not copied: it must outlive delivery),
  // polling while the local queue is full. Error only for non-retriable
  // local failures.
  Status send(const std::string& topic, int32_t partition, const void* payload, size_t size);
  // Waits for every outstanding message; error if some are left or failed.
  Status flush(int timeout_ms);

  int64_t delivered() const { return delivered_.load(std::memory_order_relaxed); }
  int64_t failed() const { return failed_.load(std::memory_order_relaxed); }
  void reset_counts() { delivered_ = 0; failed_ = 0; }
  std::string first_error() const;
  // Called for every delivery report (after the counters), on the thread
  // that polls or flushes this producer. Set it before the first send.
  void set_delivery_hook(std::function<void(const rd_kafka_message_t&)> hook) { hook_ = std::move(hook); }

 private:
  Producer() = default;
  static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* m, void* opaque);

  RdkHandle rk_;
  std::atomic<int64_t> delivered_{0};
  std::atomic<int64_t> failed_{0};
  std::atomic<int> first_err_{0};
  std::function<void(const rd_kafka_message_t&)> hook_;
};

struct NewTopic {
  std::string name;
  int partitions = 1;
  KafkaConfig configs;  // topic configs, e.g. {"flush.messages", "1"}
  int replication_factor = -1;  // -1: the broker's default.replication.factor
  // Explicit placement: replica broker ids per partition (partition i gets
  // replica_assignment[i], the first its preferred leader); when set,
  // replication_factor is ignored and partitions must equal its size.
  std::vector<std::vector<int32_t>> replica_assignment = {};
};

// One admin request: `issue(options, queue)` sends it (e.g. rd_kafka_CreateAcls)
// with request and operation time-outs of `timeout_ms`; returns its result
// event (the caller destroys it), or the request-level error.
template <class Issue>
Result<rd_kafka_event_t*> admin_request(rd_kafka_t* rk, rd_kafka_admin_op_t op, int timeout_ms, Issue issue) {
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  rd_kafka_AdminOptions_t* opts = rd_kafka_AdminOptions_new(rk, op);
  char err[512];
  rd_kafka_AdminOptions_set_request_timeout(opts, timeout_ms, err, sizeof err);
  rd_kafka_AdminOptions_set_operation_timeout(opts, timeout_ms, err, sizeof err);
  issue(opts, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, timeout_ms + 5000);
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_queue_destroy(q);
  if (ev == nullptr) return Status::error("admin request timed out");
  if (rd_kafka_event_error(ev)) {
    std::string msg = rd_kafka_event_error_string(ev);
    rd_kafka_event_destroy(ev);
    return Status::error("admin request failed: " + msg);
  }
  return ev;
}

// CreateTopics through the admin API; waits for the result.
Status create_topics(const std::string& bootstrap, const std::vector<NewTopic>& topics, int timeout_ms);
// DeleteTopics, best effort (the caller only logs a failure).
Status delete_topics(const std::string& bootstrap, const std::vector<std::string>& names, int timeout_ms);
// One Metadata round trip for `topic` (waits for the leader of every partition).
Status wait_topic_ready(rd_kafka_t* rk, const std::string& topic, int partitions, int timeout_ms);
// Assigns the consumer `rk` one partition, starting at `offset` (or a
// logical RD_KAFKA_OFFSET_*): no group join.
Status assign_partition(rd_kafka_t* rk, const std::string& topic, int32_t partition, int64_t offset);

}  // namespace spool::bench
