// TopicConfigChanges: a broker's listener on /config/changes (Kafka's
// ZkNodeChangeNotificationListener + TopicConfigHandler): every
// config_change_<seq> notification naming "topics/T" (v2 entity_path, or
// v1 entity_type/entity_name) makes it read /config/topics/T and hand the
// topic's whole override set to `apply` (an absent node: the empty set).
//
// Contract
// - poll() lists /config/changes (setting a children watch), and processes,
//   in sequence order, every notification above the last one processed; at
//   the first poll that is every notification present (as Kafka's init()).
//   Notifications for other entity types (brokers, clients, users) are
//   skipped. A notification or config that does not decode is logged and
//   skipped (bad input from ZooKeeper never stops the listener).
// - The watch only calls `wake` (on the store's callback thread, where the
//   store must not be called); the owner then calls poll() on its own thread.
// - Kafka also purges notifications older than 15 minutes; Spool leaves
//   that to the writer (nothing purges yet; they are small).
// Threading: poll() from one thread at a time; wake from the store's thread.
// Failure: a store error is returned; the next poll() retries.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "cluster/metadata_store.h"
#include "cluster/zk_data.h"

namespace spool::broker {

class TopicConfigChanges {
 public:
  using Apply = std::function<void(const std::string& topic, const cluster::EntityConfig& overrides)>;
  TopicConfigChanges(cluster::MetadataStore& store, Apply apply, std::function<void()> wake);

  // The number of topic changes applied; an error when the store failed.
  cluster::StoreResult<int> poll();
  // The sequence number of the last notification processed (-1: none).
  int64_t last_processed() const { return last_; }

 private:
  cluster::MetadataStore& store_;
  Apply apply_;
  std::function<void()> wake_;
  int64_t last_ = -1;
};

// "config_change_0000000042" -> 42; -1 when the name is not one.
int64_t config_change_sequence(const std::string& child);

}  // namespace spool::broker
