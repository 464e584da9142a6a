// BrokerContext: the services every request handler may use, wired once at
// start by run_broker() and alive until shutdown. Handlers receive it by
// reference; it holds no request state. The members are thread-safe.
#pragma once

#include <string>

#include "broker/broker_settings.h"
#include "broker/dynamic_broker_config.h"
#include "broker/fetch_session_cache.h"
#include "broker/replica_manager.h"
#include "broker/topic_registry.h"
#include "config/broker_config.h"
#include "storage/log_manager.h"

namespace spool::security {
class AclAuthorizer;
class ScramCredentials;
}

namespace spool::cluster {
class MetadataCache;
}

namespace spool::broker {

class AdminExecutor;
class ClientQuotaManager;
class ClusterMember;
class GroupService;
class ProducerIdManager;
class TxnService;

struct BrokerContext {
  const BrokerSettings& settings;
  TopicRegistry& registry;
  storage::LogManager& logs;
  ReplicaManager& replicas;           // partitions, the write/read paths and their purgatories
  FetchSessionCache& fetch_sessions;  // KIP-227 incremental fetch sessions
  // The parsed broker configuration, for DescribeConfigs (keys, sources,
  // synonyms). May be null in tests that wire a context by hand; handlers
  // needing it then answer an error instead of crashing.
  const config::BrokerConfig* config = nullptr;
  // Dynamic broker configs (/config/brokers): the layers DescribeConfigs
  // describes and the BROKER resources of AlterConfigs write. Null in
  // hand-wired tests: the static config is all there is, and broker
  // resources cannot be altered.
  DynamicBrokerConfig* dynamic = nullptr;
  // Consumer groups (issue 5): __consumer_offsets and the group coordinator.
  // Null in tests that wire a context without it; group APIs then answer
  // COORDINATOR_NOT_AVAILABLE.
  GroupService* groups = nullptr;
  // Idempotent producer ids (issue 6). Null in hand-wired tests:
  // InitProducerId then answers COORDINATOR_NOT_AVAILABLE.
  ProducerIdManager* producer_ids = nullptr;
  // Transactions (issue 6): __transaction_state and the transaction
  // coordinator. Null in hand-wired tests: transaction APIs then answer
  // COORDINATOR_NOT_AVAILABLE.
  TxnService* txns = nullptr;
  // Topic lifecycle work (create/delete/partitions/configs, auto-creation)
  // runs here, off the reactor threads. Null in hand-wired tests: the work
  // then runs inline on the handler's thread.
  AdminExecutor* admin = nullptr;
  // Cluster mode (zookeeper.connect set, issue 13): the membership (store,
  // epoch gate, controller) and the metadata cache UpdateMetadata fills.
  // Both null on a single node: every handler then answers as before.
  ClusterMember* cluster = nullptr;
  cluster::MetadataCache* metadata = nullptr;
  // The metadata store dynamic broker configs live in: ZooKeeper in a
  // cluster, the embedded store on a single node. Null in hand-wired tests.
  cluster::MetadataStore* config_store = nullptr;
  // The SCRAM credentials the SASL listeners authenticate against (mirrored
  // from the store's /config/users). Null in hand-wired tests.
  security::ScramCredentials* scram = nullptr;
  // The ACL authorizer (authorizer.class.name set); null = no authorizer,
  // nothing is checked (Kafka without one). Its bindings mirror the store's
  // /kafka-acl trees (acl_store.h). Handlers ask through handlers/authorize.h.
  security::AclAuthorizer* authorizer = nullptr;
  // Client quotas (client_quota_manager.h), mirrored from the store's
  // /config/users and /config/clients. Null in hand-wired tests: no quotas.
  ClientQuotaManager* quotas = nullptr;

  // The current configuration layers: the dynamic ones, else the static
  // config alone; null when neither is wired.
  std::shared_ptr<const config::BrokerConfigLayers> config_layers() const {
    if (dynamic != nullptr) return dynamic->current();
    if (config != nullptr)
      return std::make_shared<const config::BrokerConfigLayers>(std::make_shared<const config::BrokerConfig>(*config));
    return nullptr;
  }
};

}  // namespace spool::broker
