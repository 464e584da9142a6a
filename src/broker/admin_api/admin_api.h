// AdminApi: what the broker's admin HTTP listener (admin.listener,
// http/http_server.h) serves. Routes (docs/admin-api.yaml is the OpenAPI
// description):
//   GET /metrics      Prometheus text: Kafka-named series (metrics_text.cc)
//   GET /v1/health    200 while the process serves HTTP (liveness)
//   GET /v1/ready     200 once the broker accepts Kafka clients (registered in
//                     a cluster, logs loaded), until shutdown starts, and
//                     while no partition led here is offline; else 503
//   GET /v1/cluster   cluster id, controller, live brokers    (admin_json.cc)
//   GET /v1/topics    topics with partitions: leader, replicas, ISR, and for
//                     replicas hosted here their log size and offsets
//   GET /v1/config    the effective broker config, passwords masked (null)
//   GET /v1/groups    the consumer groups this broker coordinates
//                     ("coordinator": its id): state, protocol, members with
//                     their decoded assignments, and per partition the
//                     committed offset, log end offset (the high watermark
//                     when led here, else null) and lag    (groups_json.cc)
//   GET /v1/topics/{topic}/partitions/{p}/records?offset=N&limit=M
//                     the message browser: records of a partition hosted and
//                     led here, from offset N (default: the log start) below
//                     the high watermark, M (default 20, at most 100) at most;
//                     unknown or not-led partition 404, bad offset (outside
//                     [log start, high watermark]) or limit 400 (records_json.cc)
//   GET /             the web console (console/index.html)
//   GET /console/<f>  its other files, embedded at build time; unknown 404
//                     (console_assets.h)
// Anything else: 404 (JSON error). JSON answers are objects; an error is
// {"error": "..."}. Who may read what: admin_auth.h (checked first).
//
// Threading: handle() runs on the HTTP server's thread; everything it reads
// is thread-safe (BrokerContext members, metrics). It never blocks on
// another broker or on ZooKeeper: cluster views come from the metadata cache.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker/admin_api/admin_auth.h"
#include "broker/broker_context.h"
#include "http/http_server.h"
#include "util/metrics.h"

namespace spool::broker {

// A JSON view's status code and body.
struct JsonAnswer {
  int status = 200;
  nlohmann::json body;
};

inline constexpr int64_t kDefaultRecordsLimit = 20;
inline constexpr int64_t kMaxRecordsLimit = 100;

// The broker's lifecycle, as run_broker() moves it.
struct AdminStatus {
  std::atomic<bool> serving{false};   // accepting Kafka clients
  std::atomic<bool> stopping{false};  // shutdown started
};

// The Kafka listeners' open connections: (listener name, count) each.
using ListenerConnections = std::function<std::vector<std::pair<std::string, size_t>>()>;

class AdminApi {
 public:
  // connections: the Kafka listeners' open connections (may answer
  // nothing until the Kafka server exists).
  AdminApi(BrokerContext& ctx, const AdminStatus& status, ListenerConnections connections,
           AdminAuthMode auth = AdminAuthMode::kNone);

  http::HttpResponse handle(const http::HttpRequest& req) const;

  // Parts, public for tests.
  std::string metrics_text() const;
  nlohmann::json cluster_json() const;
  nlohmann::json topics_json() const;
  nlohmann::json config_json() const;
  nlohmann::json groups_json() const;
  // topic and partition as the path gives them (not yet validated).
  JsonAnswer records_json(const std::string& topic, const std::string& partition, const http::HttpRequest& req) const;
  // admin.metrics.consumer.lag's series (metrics_text.cc).
  void render_consumer_lag(util::PromText& out) const;
  // Why the broker is not ready, "" when it is.
  std::string not_ready_reason() const;

 private:
  BrokerContext& ctx_;
  const AdminStatus& status_;
  ListenerConnections connections_;
  AdminAuth auth_;
};

// Process metrics (CPU seconds, resident memory, open and max file
// descriptors, start time) in Prometheus' standard process_* names, from
// /proc/self (process_metrics.cc).
void render_process_metrics(util::PromText& out);

}  // namespace spool::broker
