// Kafka's entity configs (/config/<type>/<name>, {"version":1,"config":{...}})
// read from and written to a metadata store: ZooKeeper in a cluster, the
// embedded store on a single node. Used for topic overrides
// (/config/topics/T, cluster_admin.h) and dynamic broker configs
// (/config/brokers/<id> and /config/brokers/<default>,
// dynamic_broker_config.h). The codec and paths are cluster/zk_data.h and
// cluster/zk_paths.h; docs/zookeeper-layout.md describes them.
//
// Contract
// - Blocking store round trips: call off the reactors (admin executor, the
//   config-change thread, start-up).
// - A missing node is the empty config (version kNoNode), and so is a node
//   without data (a parent of a deeper entity); a node that does not decode
//   is an error naming the path.
// - write_entity_config() writes only over `expected_version` (kNoNode:
//   create it; kAnyVersion: set or create), creating missing parents, then,
//   when `notify_entity` is set ("brokers/<default>", "topics/T"), the change
//   notification /config/changes/config_change_<seq> {"version":2,
//   "entity_path":...} every broker watches. Returns false, writing nothing,
//   when the node changed since it was read (a concurrent writer): read and
//   edit again.
// - Errors are a Status with UNKNOWN_SERVER_ERROR naming the path and the
//   store's code. Thread-safe (the stores are).
#pragma once

#include <cstdint>
#include <string>

#include "cluster/metadata_store.h"
#include "cluster/zk_data.h"
#include "util/status.h"

namespace spool::broker {

struct StoredEntityConfig {
  static constexpr int32_t kNoNode = -1;
  static constexpr int32_t kAnyVersion = -2;
  cluster::EntityConfig config;
  int32_t version = kNoNode;  // the node's data version
};

Result<StoredEntityConfig> read_entity_config(cluster::MetadataStore& store, const std::string& path);

Result<bool> write_entity_config(cluster::MetadataStore& store, const std::string& path,
                                 const cluster::EntityConfig& config, int32_t expected_version,
                                 const std::string& notify_entity);

}  // namespace spool::broker
