#include "bench/rdk.h"

#include <chrono>
#include <thread>

namespace spool::bench {

void RdkDeleter::operator()(rd_kafka_t* rk) const {
  if (rk == nullptr) return;
  if (rd_kafka_type(rk) == RD_KAFKA_CONSUMER) rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
}

namespace {

Result<rd_kafka_conf_t*> build_conf(const KafkaConfig& config) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  for (const auto& [k, v] : config) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return Status::error("librdkafka config " + k + "=" + v + ": " + err);
    }
  }
  return conf;
}

Result<RdkHandle> new_handle(rd_kafka_type_t type, rd_kafka_conf_t* conf) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof err);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Status::error(std::string("rd_kafka_new: ") + err);
  }
  if (type == RD_KAFKA_CONSUMER) rd_kafka_poll_set_consumer(rk);
  return RdkHandle(rk);
}

Status topic_results(const rd_kafka_topic_result_t** res, size_t n, bool ignore_exists, bool ignore_unknown) {
  for (size_t i = 0; i < n; ++i) {
    rd_kafka_resp_err_t e = rd_kafka_topic_result_error(res[i]);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) continue;
    if (ignore_exists && e == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) continue;
    if (ignore_unknown && e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) continue;
    const char* s = rd_kafka_topic_result_error_string(res[i]);
    return Status::error(std::string("topic ") + rd_kafka_topic_result_name(res[i]) + ": " +
                         (s ? s : rd_kafka_err2str(e)));
  }
  return Status::ok();
}

}  // namespace

Result<RdkHandle> make_client(rd_kafka_type_t type, const KafkaConfig& config) {
  auto conf = build_conf(config);
  if (!conf) return conf.status();
  return new_handle(type, *conf);
}

Result<std::unique_ptr<Producer>> Producer::create(const KafkaConfig& config) {
  auto conf = build_conf(config);
  if (!conf) return conf.status();
  std::unique_ptr<Producer> p(new Producer());
  rd_kafka_conf_set_dr_msg_cb(*conf, &Producer::on_delivery);
  rd_kafka_conf_set_opaque(*conf, p.get());
  auto h = new_handle(RD_KAFKA_PRODUCER, *conf);
  if (!h) return h.status();
  p->rk_ = std::move(*h);
  return p;
}

void Producer::on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* self = static_cast<Producer*>(opaque);
  if (m->err) {
    self->failed_.fetch_add(1, std::memory_order_relaxed);
    int expected = 0;
    self->first_err_.compare_exchange_strong(expected, static_cast<int>(m->err));
  } else {
    self->delivered_.fetch_add(1, std::memory_order_relaxed);
  }
  if (self->hook_) self->hook_(*m);
}

std::string Producer::first_error() const {
  int e = first_err_.load();
  return e == 0 ? "none" : rd_kafka_err2str(static_cast<rd_kafka_resp_err_t>(e));
}

Status Producer::send(const std::string& topic, int32_t partition, const void* payload, size_t size) {
  for (;;) {
    rd_kafka_resp_err_t e =
        rd_kafka_producev(rk_.get(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                          RD_KAFKA_V_VALUE(const_cast<void*>(payload), size), RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) return Status::ok();
    if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) return Status::error(std::string("produce: ") + rd_kafka_err2str(e));
    rd_kafka_poll(rk_.get(), 1);
  }
}

Status Producer::flush(int timeout_ms) {
  rd_kafka_resp_err_t e = rd_kafka_flush(rk_.get(), timeout_ms);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
    return Status::error("flush: " + std::to_string(rd_kafka_outq_len(rk_.get())) + " messages still queued after " +
                         std::to_string(timeout_ms) + " ms");
  if (failed() > 0)
    return Status::error(std::to_string(failed()) + " deliveries failed (first: " + first_error() + ")");
  return Status::ok();
}

Status create_topics(const std::string& bootstrap, const std::vector<NewTopic>& topics, int timeout_ms) {
  auto admin = make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", bootstrap}});
  if (!admin) return admin.status();
  std::vector<rd_kafka_NewTopic_t*> nts;
  char err[512];
  Status st;
  for (const auto& t : topics) {
    const bool placed = !t.replica_assignment.empty();
    rd_kafka_NewTopic_t* nt =
        rd_kafka_NewTopic_new(t.name.c_str(), t.partitions, placed ? -1 : t.replication_factor, err, sizeof err);
    if (nt == nullptr) {
      st = Status::error("NewTopic " + t.name + ": " + err);
      break;
    }
    nts.push_back(nt);
    for (size_t p = 0; placed && p < t.replica_assignment.size(); ++p) {
      std::vector<int32_t> ids = t.replica_assignment[p];
      if (rd_kafka_NewTopic_set_replica_assignment(nt, static_cast<int32_t>(p), ids.data(), ids.size(), err,
                                                   sizeof err) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        st = Status::error("NewTopic " + t.name + " partition " + std::to_string(p) + " assignment: " + err);
        break;
      }
    }
    if (!st) break;
    for (const auto& [k, v] : t.configs) rd_kafka_NewTopic_set_config(nt, k.c_str(), v.c_str());
  }
  if (st) {
    auto ev = admin_request(admin->get(), RD_KAFKA_ADMIN_OP_CREATETOPICS, timeout_ms,
                            [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                              rd_kafka_CreateTopics(admin->get(), nts.data(), nts.size(), o, q);
                            });
    if (ev) {
      size_t n = 0;
      const rd_kafka_topic_result_t** res =
          rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(*ev), &n);
      st = topic_results(res, n, /*ignore_exists=*/false, false);
      rd_kafka_event_destroy(*ev);
    } else {
      st = ev.status();
    }
  }
  rd_kafka_NewTopic_destroy_array(nts.data(), nts.size());
  return st;
}

Status delete_topics(const std::string& bootstrap, const std::vector<std::string>& names, int timeout_ms) {
  auto admin = make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", bootstrap}});
  if (!admin) return admin.status();
  std::vector<rd_kafka_DeleteTopic_t*> dts;
  for (const auto& n : names) dts.push_back(rd_kafka_DeleteTopic_new(n.c_str()));
  auto ev = admin_request(admin->get(), RD_KAFKA_ADMIN_OP_DELETETOPICS, timeout_ms,
                          [&](rd_kafka_AdminOptions_t* o, rd_kafka_queue_t* q) {
                            rd_kafka_DeleteTopics(admin->get(), dts.data(), dts.size(), o, q);
                          });
  rd_kafka_DeleteTopic_destroy_array(dts.data(), dts.size());
  if (!ev) return ev.status();
  size_t n = 0;
  const rd_kafka_topic_result_t** res =
      rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(*ev), &n);
  Status st = topic_results(res, n, false, /*ignore_unknown=*/true);
  rd_kafka_event_destroy(*ev);
  return st;
}

Status wait_topic_ready(rd_kafka_t* rk, const std::string& topic, int partitions, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  std::string last = "no metadata";
  while (std::chrono::steady_clock::now() < deadline) {
    const rd_kafka_metadata_t* md = nullptr;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, 5000);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR && md != nullptr) {
      bool ready = md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR &&
                   md->topics[0].partition_cnt >= partitions;
      for (int i = 0; ready && i < md->topics[0].partition_cnt; ++i)
        if (md->topics[0].partitions[i].leader < 0) ready = false;
      if (!ready && md->topic_cnt == 1) last = rd_kafka_err2str(md->topics[0].err);
      rd_kafka_metadata_destroy(md);
      if (ready) {
        rd_kafka_topic_destroy(rkt);
        return Status::ok();
      }
    } else {
      last = rd_kafka_err2str(e);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  rd_kafka_topic_destroy(rkt);
  return Status::error("topic " + topic + " not ready: " + last);
}

Status assign_partition(rd_kafka_t* rk, const std::string& topic, int32_t partition, int64_t offset) {
  rd_kafka_topic_partition_list_t* tl = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(tl, topic.c_str(), partition)->offset = offset;
  const rd_kafka_resp_err_t e = rd_kafka_assign(rk, tl);
  rd_kafka_topic_partition_list_destroy(tl);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) return Status::error(std::string("assign: ") + rd_kafka_err2str(e));
  return Status::ok();
}

}  // namespace spool::bench
