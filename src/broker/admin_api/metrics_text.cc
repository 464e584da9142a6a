// AdminApi::metrics_text: the /metrics page (admin_api.h). Counters come
// from the process-wide metric objects (request, topic, ISR, flush); gauges
// are computed at scrape time from the partitions hosted here and the
// metadata cache. Names follow the Prometheus JMX exporter's rendering of
// Kafka's MBeans (kafka.server:type=ReplicaManager,name=LeaderCount ->
// kafka_server_replicamanager_leadercount).
#include "broker/admin_api/admin_api.h"
#include "broker/metrics/request_metrics.h"
#include "broker/metrics/topic_metrics.h"
#include "broker/partition.h"
#include "broker/replica_manager.h"
#include "broker/cluster_member.h"
#include "cluster/controller/controller.h"
#include "cluster/metadata_cache.h"
#include "replica/isr_metrics.h"
#include "storage/flush_metrics.h"

namespace spool::broker {
namespace {

struct PartitionGauges {
  int64_t partitions = 0;         // replicas hosted here
  int64_t leaders = 0;            // led here
  int64_t under_replicated = 0;   // led here, ISR smaller than the replica set
  int64_t under_min_isr = 0;      // led here, ISR below min.insync.replicas
  int64_t at_min_isr = 0;         // led here, ISR exactly min.insync.replicas
  int64_t offline_replicas = 0;   // hosted here on an offline log dir
  int64_t offline_partitions = 0; // controller only: partitions without a leader
};

// A single node is its own controller.
bool active_controller(const BrokerContext& ctx) {
  return ctx.cluster == nullptr || (ctx.cluster->controller() != nullptr && ctx.cluster->controller()->is_active());
}

PartitionGauges partition_gauges(const BrokerContext& ctx, bool controller) {
  PartitionGauges g;
  const int32_t self = ctx.settings.broker_id;
  for (const auto& p : ctx.replicas.all_partitions()) {
    ++g.partitions;
    if (p->offline()) ++g.offline_replicas;
    if (!p->is_leader()) continue;
    ++g.leaders;
    size_t replicas = 1, isr = 1;
    if (ctx.metadata != nullptr) {
      auto pm = ctx.metadata->partition(p->key());
      if (!pm || pm->leader != self) continue;  // the cache has not caught up yet
      replicas = pm->replicas.size();
      isr = pm->isr.size();
    }
    const auto min_isr = static_cast<size_t>(std::max(p->min_insync_replicas(), 1));
    if (isr < replicas) ++g.under_replicated;
    if (isr < min_isr) ++g.under_min_isr;
    if (isr == min_isr) ++g.at_min_isr;
  }
  if (controller && ctx.metadata != nullptr) {
    for (const auto& topic : ctx.metadata->topics())
      for (const auto& pm : ctx.metadata->topic_partitions(topic))
        if (pm.leader < 0) ++g.offline_partitions;
  } else if (controller) {
    g.offline_partitions = g.offline_replicas;  // a single node: its only replicas are the partitions
  }
  return g;
}

void gauge(util::PromText& out, const char* name, const char* help, double v) {
  out.family(name, "gauge", help);
  out.sample(name, {}, v);
}

void counter(util::PromText& out, const char* name, const char* help, double v) {
  out.family(name, "counter", help);
  out.sample(name, {}, v);
}

}  // namespace

// admin.metrics.consumer.lag: the lag of the groups coordinated here, per
// partition led here, in kafka_exporter's names (consumergroup, topic,
// partition), from the same rows as /v1/groups.
void AdminApi::render_consumer_lag(util::PromText& out) const {
  const nlohmann::json groups = groups_json();
  struct Row {
    std::string group, topic, partition;
    int64_t committed;
    std::optional<int64_t> lag;
  };
  std::vector<Row> rows;
  for (const auto& g : groups.value("groups", nlohmann::json::array()))
    for (const auto& p : g.value("partitions", nlohmann::json::array()))
      if (p["committed_offset"].is_number_integer())
        rows.push_back({g["group_id"].get<std::string>(), p["topic"].get<std::string>(),
                        std::to_string(p["partition"].get<int32_t>()), p["committed_offset"].get<int64_t>(),
                        p["lag"].is_number_integer() ? std::optional<int64_t>(p["lag"].get<int64_t>()) : std::nullopt});
  out.family("kafka_consumergroup_current_offset", "gauge", "Committed offset of a group, per partition");
  for (const auto& r : rows)
    out.sample("kafka_consumergroup_current_offset",
               {{"consumergroup", r.group}, {"topic", r.topic}, {"partition", r.partition}},
               static_cast<double>(r.committed));
  out.family("kafka_consumergroup_lag", "gauge",
             "High watermark minus committed offset, per partition led by this broker");
  for (const auto& r : rows)
    if (r.lag)
      out.sample("kafka_consumergroup_lag", {{"consumergroup", r.group}, {"topic", r.topic}, {"partition", r.partition}},
                 static_cast<double>(*r.lag));
}

std::string AdminApi::metrics_text() const {
  util::PromText out;
  const bool active = active_controller(ctx_);
  const PartitionGauges g = partition_gauges(ctx_, active);
  gauge(out, "kafka_server_replicamanager_partitioncount", "Partitions with a replica on this broker",
        static_cast<double>(g.partitions));
  gauge(out, "kafka_server_replicamanager_leadercount", "Partitions led by this broker", static_cast<double>(g.leaders));
  gauge(out, "kafka_server_replicamanager_underreplicatedpartitions",
        "Partitions led here whose ISR is smaller than their replica set", static_cast<double>(g.under_replicated));
  gauge(out, "kafka_server_replicamanager_underminisrpartitioncount",
        "Partitions led here whose ISR is below min.insync.replicas", static_cast<double>(g.under_min_isr));
  gauge(out, "kafka_server_replicamanager_atminisrpartitioncount",
        "Partitions led here whose ISR is exactly min.insync.replicas", static_cast<double>(g.at_min_isr));
  gauge(out, "kafka_server_replicamanager_offlinereplicacount", "Replicas hosted here on an offline log dir",
        static_cast<double>(g.offline_replicas));
  const auto& isr = replica::isr_metrics();
  counter(out, "kafka_server_replicamanager_isrshrinks_total", "ISR shrinks committed for partitions led here",
          static_cast<double>(isr.shrinks.value()));
  counter(out, "kafka_server_replicamanager_isrexpands_total", "ISR expansions committed for partitions led here",
          static_cast<double>(isr.expands.value()));
  gauge(out, "kafka_controller_kafkacontroller_activecontrollercount",
        "1 on the active controller (a single node is its own), else 0", active ? 1 : 0);
  gauge(out, "kafka_controller_kafkacontroller_offlinepartitionscount",
        "Partitions without a leader (reported by the active controller only)",
        static_cast<double>(g.offline_partitions));

  out.family("kafka_server_delayedoperationpurgatory_purgatorysize", "gauge",
             "Operations watched in a purgatory (estimate, as Kafka)");
  out.sample("kafka_server_delayedoperationpurgatory_purgatorysize", {{"delayedoperation", "Produce"}},
             ctx_.replicas.produce_purgatory().watched());
  out.sample("kafka_server_delayedoperationpurgatory_purgatorysize", {{"delayedoperation", "Fetch"}},
             ctx_.replicas.fetch_purgatory().watched());
  out.family("kafka_server_delayedoperationpurgatory_numdelayedoperations", "gauge",
             "Operations waiting in a purgatory's timer");
  out.sample("kafka_server_delayedoperationpurgatory_numdelayedoperations", {{"delayedoperation", "Produce"}},
             ctx_.replicas.produce_purgatory().delayed());
  out.sample("kafka_server_delayedoperationpurgatory_numdelayedoperations", {{"delayedoperation", "Fetch"}},
             ctx_.replicas.fetch_purgatory().delayed());

  out.family("kafka_server_socket_server_metrics_connection_count", "gauge", "Open Kafka connections, per listener");
  if (connections_)
    for (const auto& [listener, n] : connections_())
      out.sample("kafka_server_socket_server_metrics_connection_count", {{"listener", listener}},
                 static_cast<double>(n));

  const auto& flush = storage::flush_metrics();
  out.family("kafka_log_logflushstats_logflushrateandtimems", "histogram", "Time of one log's fsync, in milliseconds");
  out.histogram("kafka_log_logflushstats_logflushrateandtimems", {}, flush.flush_ms.snapshot());
  out.family("spool_log_group_commit_appends", "histogram", "Appends made durable by one flusher pass");
  out.histogram("spool_log_group_commit_appends", {}, flush.appends_per_pass.snapshot());
  out.family("spool_log_group_commit_logs", "histogram", "Logs synced by one flusher pass");
  out.histogram("spool_log_group_commit_logs", {}, flush.logs_per_pass.snapshot());

  if (ctx_.config != nullptr && ctx_.config->get_bool("admin.metrics.consumer.lag")) render_consumer_lag(out);
  TopicMetrics::instance().render(out);
  RequestMetrics::instance().render(out);
  render_process_metrics(out);
  return out.take();
}

}  // namespace spool::broker
