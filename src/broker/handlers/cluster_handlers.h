// The cluster-mode halves of the client APIs whose answer depends on the
// cluster (each called by its handler when BrokerContext::cluster is set;
// single-node brokers never reach them). They answer from the metadata
// cache and write topic changes through broker/cluster_admin.h on the admin
// executor. Files: metadata_cluster.cc (Metadata and the lookups the other
// handlers share), auto_create_cluster.cc (auto-creation). CreateTopics,
// DeleteTopics and CreatePartitions keep their cluster halves in their own
// files (topics_admin.cc, delete_topics.cc, create_partitions.cc).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "broker/broker_context.h"
#include "broker/request_context.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"

namespace spool::broker {

void cluster_metadata(BrokerContext& b, const RequestContext& ctx, const protocol::MetadataRequest& req);

// Queues the creation of `topic` (auto-creation by Metadata, or an internal
// topic by FindCoordinator) on the admin executor, without waiting: the
// caller answers LEADER_NOT_AVAILABLE / COORDINATOR_NOT_AVAILABLE and the
// client retries, as with Kafka. Internal topics use their own partition
// count and replication factor (offsets.topic.*, transaction.state.log.*);
// fewer live brokers than that factor fails the creation (logged), as Kafka.
void cluster_auto_create(BrokerContext& b, const std::string& topic);

// The Metadata partition entries of `topic` from the cache (empty when
// unknown), as seen from `listener`: a live leader without an endpoint there
// answers leader -1 with LISTENER_NOT_FOUND (v6+) or LEADER_NOT_AVAILABLE,
// as Kafka.
std::vector<protocol::MetadataResponse::MetadataResponseTopic::MetadataResponsePartition> cluster_partitions(
    BrokerContext& b, const std::string& topic, const std::string& listener, int16_t version);

// The live broker `id` on `listener`: host and port; false when not live or
// without that listener.
bool cluster_broker_endpoint(BrokerContext& b, int32_t id, const std::string& listener, std::string* host,
                             int32_t* port);

}  // namespace spool::broker
