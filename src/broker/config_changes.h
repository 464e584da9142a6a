// ConfigChanges: a broker's listener on /config/changes (Kafka's
// ZkNodeChangeNotificationListener with its TopicConfigHandler and
// BrokerConfigHandler): every config_change_<seq> notification (v2
// entity_path, or v1 entity_type/entity_name) naming
//   "topics/T"           makes it read /config/topics/T and hand the topic's
//                        whole override set to handlers.topic;
//   "brokers/<default>"  or "brokers/N": read /config/brokers/<name> and hand
//                        the whole set and the name ("<default>" or "N") to
//                        handlers.broker (the handler keeps what concerns
//                        this broker: the default and its own id);
//   "users/U"            read /config/users/U and hand it to handlers.user
//                        (SCRAM credentials; U as stored, sanitized) and
//                        to handlers.quota;
//   "clients/C", "users/U/clients/C": read the node and hand it to
//                        handlers.quota with the whole entity path.
// An absent config node (or one without data) is the empty set.
//
// Contract
// - poll() lists /config/changes (setting a children watch), and processes,
//   in sequence order, every notification above the last one processed; at
//   the first poll that is every notification present (as Kafka's init()).
//   Notifications for other entity types (ips), or for a
//   type without a handler, are skipped. A notification or config that does
//   not decode is logged and skipped (bad input from ZooKeeper never stops
//   the listener).
// - The watch only calls `wake` (on the store's callback thread, where the
//   store must not be called); the owner then calls poll() on its own thread.
// - Kafka also purges notifications older than 15 minutes; Spool leaves
//   that to the writer (nothing purges yet; they are small).
// Threading: poll() from one thread at a time (the handlers run on it);
// wake from the store's thread. Failure: a store error is returned; the
// next poll() retries.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "cluster/metadata_store.h"
#include "cluster/zk_data.h"

namespace spool::broker {

class ConfigChanges {
 public:
  using Apply = std::function<void(const std::string& entity_name, const cluster::EntityConfig& config)>;
  struct Handlers {
    Apply topic;   // entity name = the topic
    Apply broker;  // entity name = "<default>" or a broker id
    Apply user;    // entity name = the user (sanitized, as stored)
    Apply quota{};  // entity name = the entity path: "users/U", "clients/C", "users/U/clients/C"
  };
  ConfigChanges(cluster::MetadataStore& store, Handlers handlers, std::function<void()> wake);

  // The number of changes applied; an error when the store failed.
  cluster::StoreResult<int> poll();
  // The sequence number of the last notification processed (-1: none).
  int64_t last_processed() const { return last_; }

 private:
  cluster::MetadataStore& store_;
  Handlers handlers_;
  std::function<void()> wake_;
  int64_t last_ = -1;
};

// "config_change_0000000042" -> 42; -1 when the name is not one.
int64_t config_change_sequence(const std::string& child);

}  // namespace spool::broker
