// FuzzBroker: a single-node broker wired in-process as broker/run.cc wires
// one (log manager, embedded metadata store and topic registry, replica
// manager, producer ids, fetch sessions, group and transaction services,
// dynamic configs) and its Dispatcher, without a network listener: requests
// go straight to Dispatcher::handle with an empty Responder, so answers are
// encoded and dropped. Differences from run.cc, for speed and determinism:
// small internal topics (1 partition each), no initial rebalance delay,
// small index files, and topic lifecycle work runs inline on the caller's
// thread (BrokerContext::admin is null, as in hand-wired tests).
//
// Lifetime: open() on an empty directory, then handle() any number of
// frames, then the destructor shuts everything down in run.cc's order
// (coordinators, parked requests, logs). One at a time per directory; not
// thread-safe (handle() plays the one reactor thread). A failure to open is
// returned; nothing here throws.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "broker/broker_context.h"
#include "broker/dispatcher.h"
#include "broker/dynamic_broker_config.h"
#include "broker/group_service.h"
#include "broker/producer_id_manager.h"
#include "broker/replica_manager.h"
#include "broker/txn_service.h"
#include "cluster/embedded_store.h"
#include "config/broker_config.h"
#include "storage/log_manager.h"
#include "util/frame_bytes.h"
#include "util/status.h"

namespace spool::fuzz {

class FuzzBroker {
 public:
  static Result<std::unique_ptr<FuzzBroker>> open(const std::string& dir) {
    std::unique_ptr<FuzzBroker> b(new FuzzBroker());
    if (Status s = b->start(dir); !s) return s;
    return b;
  }
  ~FuzzBroker() {
    if (txns_) txns_->shutdown();
    if (groups_) groups_->shutdown();
    if (replicas_) replicas_->shutdown();
    if (logs_) logs_->shutdown();
  }
  FuzzBroker(const FuzzBroker&) = delete;
  FuzzBroker& operator=(const FuzzBroker&) = delete;

  // One request frame (header + body, no size prefix) from connection `conn`.
  void handle(uint64_t conn, const uint8_t* data, size_t size) {
    net::ConnectionInfo info{conn, "127.0.0.1:" + std::to_string(40000 + conn)};
    dispatcher_->handle(info, FrameBytes(data, data + size), net::Responder{});
  }
  void disconnect(uint64_t conn) { dispatcher_->on_disconnect({conn, "127.0.0.1:" + std::to_string(40000 + conn)}); }

 private:
  FuzzBroker() = default;

  Status start(const std::string& dir) {
    std::vector<std::string> warnings;
    auto cfg = config::BrokerConfig::from_properties(
        {{"log.dirs", dir},
         {"num.partitions", "1"},
         {"offsets.topic.num.partitions", "1"},
         {"transaction.state.log.num.partitions", "1"},
         {"group.initial.rebalance.delay.ms", "0"},
         {"log.index.size.max.bytes", "4096"}},
        &warnings);
    if (!cfg) return cfg.status();
    cfg_ = std::make_unique<config::BrokerConfig>(std::move(*cfg));
    settings_ = std::make_unique<BrokerSettings>(broker::settings_from_config(*cfg_));
    dynamic_ = std::make_unique<broker::DynamicBrokerConfig>(*cfg_, settings_->broker_id, settings_->topic_defaults);

    storage::LogManager::Options lo;
    lo.log_dirs = settings_->log_dirs;
    lo.broker_id = settings_->broker_id;
    lo.recovery_threads = 1;
    lo.cleaner_enable = false;
    lo.defaults = broker::log_config_for(*settings_, {});
    auto logs = storage::LogManager::open(lo);
    if (!logs) return logs.status();
    logs_ = std::move(*logs);
    auto store = cluster::EmbeddedStore::open(dir);
    if (!store) return Status::error(store.error().message);
    store_ = std::move(*store);
    if (Status s = dynamic_->load(*store_); !s) return s;
    auto registry = broker::TopicRegistry::open(*store_, settings_->broker_id, dir);
    if (!registry) return registry.status();
    registry_ = std::move(*registry);
    replicas_ = std::make_unique<broker::ReplicaManager>(*settings_, *registry_, *logs_);
    if (Status s = replicas_->load(); !s) return s;
    auto ids = broker::ProducerIdManager::open(dir);
    if (!ids) return ids.status();
    producer_ids_ = std::move(*ids);
    sessions_ = std::make_unique<broker::FetchSessionCache>(broker::FetchSessionCache::Options{});
    groups_ = std::make_unique<broker::GroupService>(*settings_, *replicas_,
                                                     broker::group_coordinator_options(*settings_));
    groups_->start();
    ctx_ = std::make_unique<broker::BrokerContext>(
        broker::BrokerContext{*settings_, *registry_, *logs_, *replicas_, *sessions_, cfg_.get()});
    ctx_->groups = groups_.get();
    ctx_->producer_ids = producer_ids_.get();
    ctx_->dynamic = dynamic_.get();
    ctx_->config_store = store_.get();
    broker::GroupService* groups = groups_.get();
    txns_ = std::make_unique<broker::TxnService>(
        *ctx_, broker::txn_coordinator_options(*settings_, [groups](const std::string& group_id) {
          return groups->coordinator().partition_for(group_id);
        }));
    ctx_->txns = txns_.get();
    txns_->start();
    dispatcher_ = std::make_unique<broker::Dispatcher>(*ctx_);
    return Status::ok();
  }

  using BrokerSettings = broker::BrokerSettings;
  // Declared in construction order; destroyed in reverse after the
  // destructor body has shut the services down.
  std::unique_ptr<config::BrokerConfig> cfg_;
  std::unique_ptr<BrokerSettings> settings_;
  std::unique_ptr<broker::DynamicBrokerConfig> dynamic_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<cluster::EmbeddedStore> store_;
  std::unique_ptr<broker::TopicRegistry> registry_;
  std::unique_ptr<broker::ReplicaManager> replicas_;
  std::unique_ptr<broker::ProducerIdManager> producer_ids_;
  std::unique_ptr<broker::FetchSessionCache> sessions_;
  std::unique_ptr<broker::GroupService> groups_;
  std::unique_ptr<broker::BrokerContext> ctx_;
  std::unique_ptr<broker::TxnService> txns_;
  std::unique_ptr<broker::Dispatcher> dispatcher_;
};

}  // namespace spool::fuzz
