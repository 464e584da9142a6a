// meta.properties: the file in every log dir that says which cluster and
// which broker its data belongs to (Kafka's BrokerMetadataCheckpoint in
// ZooKeeper mode: `version=0`, `broker.id`, `cluster.id`; the codec is
// read_meta_properties / write_meta_properties in checkpoint.h).
//
// Kafka's start-up rule, kept here: a log dir whose meta.properties names
// another broker.id or another cluster.id is refused, with an error naming
// the dir and both values; a dir without the file gets one. A file that
// cannot be parsed is logged and rewritten (Spool's single-node behaviour
// since the first release; Kafka would refuse it).
//
// Order at broker start: learn the cluster id (the metadata store's
// /cluster/id; for the embedded store seed it with stored_cluster_id() so
// existing dirs keep theirs), then call ensure_meta_properties() or pass the
// id as LogManager::Options::cluster_id (LogManager::open runs the same
// check). Opening the LogManager first with an empty cluster id on a fresh
// dir writes a made-up id that a later, different /cluster/id would refuse.
// Stateless and thread-safe; failures are Status with KAFKA_STORAGE_ERROR.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace spool::storage {

// The cluster id the dirs' meta.properties record: "" when none records one.
// Error when two dirs record different ids (naming both dirs and both ids).
Result<std::string> stored_cluster_id(const std::vector<std::string>& log_dirs);

// Checks every dir against (cluster_id, broker_id) without writing. An empty
// cluster_id accepts the dirs' own id (they must agree) or, when none has
// one, makes a new one (random, Kafka's Uuid text form). Returns the
// cluster id in force.
Result<std::string> check_meta_properties(const std::vector<std::string>& log_dirs, const std::string& cluster_id,
                                          int32_t broker_id);

// check_meta_properties(), then writes meta.properties into every dir that
// lacks it, cannot be parsed, or lacks the cluster id (atomic replace).
// Creates missing dirs. Returns the cluster id in force.
Result<std::string> ensure_meta_properties(const std::vector<std::string>& log_dirs, const std::string& cluster_id,
                                           int32_t broker_id);

}  // namespace spool::storage
