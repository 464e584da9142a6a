#include "broker/offsets_topic.h"

#include <string>

namespace spool::broker {

// One broker: the replication factor is min(offsets.topic.replication.factor, 1).
OffsetsTopic::OffsetsTopic(const BrokerSettings& settings, ReplicaManager& replicas)
    : InternalTopicLog(settings, replicas, kOffsetsTopic, settings.offsets_topic_num_partitions,
                       {{"cleanup.policy", "compact"},
                        {"segment.bytes", std::to_string(settings.offsets_topic_segment_bytes)}}) {}

}  // namespace spool::broker
