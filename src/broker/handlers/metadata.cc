// Metadata: this broker as the only broker and controller, and its topics.
// v0: an empty topic list means all topics; v1+: null means all, empty none.
// Unknown topics are created when auto.create.topics.enable is on and the
// request allows it (v4+ flag); on a single node they are ready at once, so
// the answer carries them with NONE instead of Kafka's LEADER_NOT_AVAILABLE.
// Naming __consumer_offsets creates it (with its partitions loaded by the
// group coordinator), as Kafka creates internal topics on request.
#include <spdlog/spdlog.h>

#include "broker/group_service.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_name.h"
#include "protocol/error_code.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"

namespace spool::broker {

using protocol::ErrorCode;

namespace {

void describe_topic(BrokerContext& b, const TopicInfo& info, protocol::MetadataResponse::MetadataResponseTopic& t) {
  t.error_code = ErrorCode::kNone;
  t.name = info.name;
  t.topic_id = info.id;
  t.is_internal = is_internal_topic(info.name);
  for (int32_t p = 0; p < info.partitions; ++p) {
    auto& part = t.partitions.emplace_back();
    auto partition = b.replicas.partition(info.name, p);
    part.partition_index = p;
    part.leader_id = b.settings.broker_id;
    part.leader_epoch = partition ? partition->leader_epoch() : 0;
    part.replica_nodes = {b.settings.broker_id};
    part.isr_nodes = {b.settings.broker_id};
    part.error_code = (partition ? ErrorCode::kNone : ErrorCode::kLeaderNotAvailable);
  }
}

}  // namespace

void handle_metadata(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::MetadataRequest req;
  if (!decode_or_close(ctx, body, req, "Metadata")) return;
  const int16_t v = ctx.version();

  protocol::MetadataResponse resp;
  auto& broker = resp.brokers.emplace_back();
  broker.node_id = b.settings.broker_id;
  broker.host = b.settings.advertised_host;
  broker.port = b.settings.advertised_port;
  resp.cluster_id = b.logs.cluster_id();
  resp.controller_id = b.settings.broker_id;

  bool all = !req.topics.has_value() || (v == 0 && req.topics->empty());
  if (all) {
    for (const auto& info : b.replicas.topics()) describe_topic(b, info, resp.topics.emplace_back());
  } else {
    bool may_create = b.settings.auto_create_topics && (v < 4 || req.allow_auto_topic_creation);
    for (const auto& rt : *req.topics) {
      std::string name = rt.name.value_or("");
      auto& t = resp.topics.emplace_back();
      t.name = name;
      auto info = b.replicas.topic(name);
      if (!info && name == kConsumerOffsetsTopic && b.groups != nullptr) {
        // As Kafka: asking for the offsets topic creates it (whatever
        // auto.create.topics.enable says), with its own settings.
        if (b.groups->ensure_offsets_topic() == ErrorCode::kNone) info = b.replicas.topic(name);
      }
      if (!info && may_create && !is_internal_topic(name)) {
        auto created = b.replicas.create_topic(name, b.settings.num_partitions, {}, false);
        if (created) {
          info = created.value();
        } else if (created.status().kafka_code() == static_cast<int16_t>(ErrorCode::kTopicAlreadyExists)) {
          info = b.replicas.topic(name);  // created concurrently by another request
        } else {
          spdlog::info("auto-creating topic '{}' refused: {}", name, created.status().message());
          t.error_code = static_cast<ErrorCode>(created.status().kafka_code());
          continue;
        }
      }
      if (!info) {
        t.error_code =
            is_valid_topic_name(name) ? ErrorCode::kUnknownTopicOrPartition : ErrorCode::kInvalidTopicException;
        continue;
      }
      describe_topic(b, *info, t);
    }
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
