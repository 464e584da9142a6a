#include "broker/topic_lookup.h"

#include "broker/replica_manager.h"
#include "broker/topic_registry.h"
#include "cluster/metadata_cache.h"

namespace spool::broker {

bool partition_exists(const BrokerContext& b, const std::string& topic, int32_t partition) {
  if (b.metadata != nullptr) return b.metadata->partition(TopicPartition{topic, partition}).has_value();
  return b.replicas.partition(topic, partition) != nullptr;
}

std::optional<std::string> topic_name_by_id(const BrokerContext& b, const protocol::Uuid& id) {
  if (id == protocol::Uuid{}) return std::nullopt;
  if (b.metadata != nullptr) return b.metadata->topic_name(id);
  return b.registry.name_of(id);
}

}  // namespace spool::broker
