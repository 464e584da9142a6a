#include "broker/admin_api/admin_api.h"

#include "broker/admin_api/console_assets.h"
#include "cluster/metadata_cache.h"

namespace spool::broker {
namespace {

// Strings clients chose (group, member and client ids, commit metadata) may
// not be UTF-8: the encoder replaces bad bytes rather than failing the view.
http::HttpResponse json_answer(int status, const nlohmann::json& body) {
  return http::HttpResponse::json(status, body.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

http::HttpResponse error_answer(int status, const std::string& message) {
  return json_answer(status, nlohmann::json{{"error", message}});
}

// "/v1/topics/{topic}/partitions/{p}/records": sets topic and partition.
bool records_path(std::string_view path, std::string& topic, std::string& partition) {
  constexpr std::string_view kPrefix = "/v1/topics/";
  constexpr std::string_view kMiddle = "/partitions/";
  constexpr std::string_view kSuffix = "/records";
  if (!path.starts_with(kPrefix) || !path.ends_with(kSuffix)) return false;
  path = path.substr(kPrefix.size(), path.size() - kPrefix.size() - kSuffix.size());
  const size_t middle = path.find(kMiddle);
  if (middle == std::string_view::npos) return false;
  topic = std::string(path.substr(0, middle));
  partition = std::string(path.substr(middle + kMiddle.size()));
  return topic.find('/') == std::string::npos && partition.find('/') == std::string::npos;
}

}  // namespace

AdminApi::AdminApi(BrokerContext& ctx, const AdminStatus& status, ListenerConnections connections,
                   AdminAuthMode auth)
    : ctx_(ctx), status_(status), connections_(std::move(connections)), auth_(auth, ctx.scram, ctx.authorizer) {}

std::string AdminApi::not_ready_reason() const {
  if (status_.stopping.load()) return "shutting down";
  if (!status_.serving.load()) return "starting: not yet accepting Kafka clients";
  // Registered, but the controller's first UpdateMetadata has not come: the
  // broker's Metadata answers would list no broker (Kafka's ZooKeeper mode
  // serves them; Spool's readiness waits).
  if (ctx_.metadata != nullptr && !ctx_.metadata->is_live(ctx_.settings.broker_id))
    return "starting: waiting for the controller's metadata";
  for (const auto& p : ctx_.replicas.all_partitions())
    if (p->is_leader() && p->offline()) return "partition " + p->key().to_string() + " led here is offline";
  return "";
}

http::HttpResponse AdminApi::handle(const http::HttpRequest& req) const {
  if (auto refused = auth_.check(req)) return *refused;
  const std::string& path = req.path;
  if (path == "/metrics") {
    http::HttpResponse r = http::HttpResponse::text(200, metrics_text());
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    return r;
  }
  if (path == "/v1/health") return json_answer(200, {{"status", "live"}, {"broker_id", ctx_.settings.broker_id}});
  if (path == "/v1/ready") {
    const std::string why = not_ready_reason();
    if (why.empty()) return json_answer(200, {{"status", "ready"}, {"broker_id", ctx_.settings.broker_id}});
    return json_answer(503, {{"status", "not ready"}, {"reason", why}, {"broker_id", ctx_.settings.broker_id}});
  }
  if (path == "/v1/cluster") return json_answer(200, cluster_json());
  if (path == "/v1/topics") return json_answer(200, topics_json());
  if (path == "/v1/config") return json_answer(200, config_json());
  if (path == "/v1/groups") return json_answer(200, groups_json());
  if (std::string topic, partition; records_path(path, topic, partition)) {
    JsonAnswer a = records_json(topic, partition, req);
    return json_answer(a.status, a.body);
  }
  if (auto console = console_response(path)) return std::move(*console);
  return error_answer(404, "no such resource: " + path);
}

}  // namespace spool::broker
