// Auto-creation on a cluster member (Kafka's ZooKeeper-mode
// AutoTopicCreationManager): the topic is written to ZooKeeper from the
// admin executor with num.partitions and default.replication.factor (the
// internal topics with their own settings), without waiting: the caller has
// already answered LEADER_NOT_AVAILABLE / COORDINATOR_NOT_AVAILABLE.
// __consumer_offsets and __transaction_state need as many live brokers as
// their replication factor (offsets.topic.replication.factor,
// transaction.state.log.replication.factor, both 3 by default), as Kafka:
// with fewer, the creation fails and is logged, and clients keep retrying.
// A topic created concurrently (TOPIC_ALREADY_EXISTS) is fine.
#include <spdlog/spdlog.h>

#include "broker/cluster_admin.h"
#include "broker/cluster_member.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/cluster_handlers.h"
#include "broker/topic_name.h"
#include "protocol/error_code.h"

namespace spool::broker {

void cluster_auto_create(BrokerContext& b, const std::string& topic) {
  run_admin_job(
      b, "auto-creation of " + topic,
      [&b, topic] {
        if (b.metadata->contains_topic(topic)) return;
        int32_t partitions = b.settings.num_partitions;
        int32_t rf = b.settings.default_replication_factor;
        std::map<std::string, std::string> configs;
        if (topic == kConsumerOffsetsTopic) {
          partitions = b.settings.offsets_topic_num_partitions;
          rf = b.settings.offsets_topic_replication_factor;
          configs = {{"cleanup.policy", "compact"},
                     {"segment.bytes", std::to_string(b.settings.offsets_topic_segment_bytes)},
                     {"compression.type", "producer"}};
        } else if (topic == "__transaction_state") {
          partitions = b.settings.transaction_state_log_num_partitions;
          rf = b.settings.transaction_state_log_replication_factor;
          configs = {{"cleanup.policy", "compact"},
                     {"segment.bytes", std::to_string(b.settings.transaction_state_log_segment_bytes)},
                     {"min.insync.replicas", std::to_string(b.settings.transaction_state_log_min_isr)},
                     {"compression.type", "uncompressed"}};
        }
        auto assignment = assign_over_live_brokers(*b.metadata, partitions, rf);
        if (!assignment) {
          spdlog::warn("auto-creating topic '{}' failed: {}", topic, assignment.status().message());
          return;
        }
        auto created = create_topic_in_store(*b.cluster, topic, *assignment, configs);
        if (!created && created.status().kafka_code() != protocol::to_int(protocol::ErrorCode::kTopicAlreadyExists))
          spdlog::warn("auto-creating topic '{}' failed: {}", topic, created.status().message());
      },
      [topic](const Status& s) { spdlog::info("auto-creation of '{}' not queued: {}", topic, s.message()); });
}

}  // namespace spool::broker
