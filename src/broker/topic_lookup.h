// Which topics and partitions exist, as this broker knows them, for the APIs
// that name partitions this broker need not host (group and transaction
// coordinators: OffsetCommit, OffsetFetch, TxnOffsetCommit,
// AddPartitionsToTxn, OffsetDelete).
//
// Contract: in cluster mode (BrokerContext::metadata set) the answer comes
// from the metadata cache, the cluster's topics as the controller last told
// this broker; on one node from the broker's own registry and partitions,
// which are all the topics there are. Reads only; thread-safe like the
// services it reads. No failure: unknown is `false` / nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "broker/broker_context.h"
#include "protocol/wire.h"

namespace spool::broker {

// The topic exists and has this partition.
bool partition_exists(const BrokerContext& b, const std::string& topic, int32_t partition);

// The name of the topic with this id (KIP-516); nullopt for an unknown or
// all-zero id.
std::optional<std::string> topic_name_by_id(const BrokerContext& b, const protocol::Uuid& id);

}  // namespace spool::broker
