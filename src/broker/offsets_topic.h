// OffsetsTopic: the internal topic __consumer_offsets, on which the group
// coordinator keeps its state — an InternalTopicLog (see internal_topic_log.h
// for append, transactional append, replay, creation and failure rules) named
// __consumer_offsets with offsets.topic.num.partitions partitions,
// cleanup.policy=compact and segment.bytes=offsets.topic.segment.bytes.
// partition_count() is the existing topic's count when it is registered at
// construction, so a group's partition never changes under the coordinator.
// Threading: as InternalTopicLog.
#pragma once

#include "broker/broker_settings.h"
#include "broker/internal_topic_log.h"
#include "broker/replica_manager.h"
#include "broker/topic_name.h"

namespace spool::broker {

inline constexpr const char* kOffsetsTopic = kConsumerOffsetsTopic;

class OffsetsTopic : public InternalTopicLog {
 public:
  OffsetsTopic(const BrokerSettings& settings, ReplicaManager& replicas);
};

}  // namespace spool::broker
