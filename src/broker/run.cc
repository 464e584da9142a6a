#include "broker/run.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <filesystem>

#include "broker/acl_store.h"
#include "broker/admin_api/admin_listener.h"
#include "broker/admin_executor.h"
#include "broker/broker_context.h"
#include "broker/client_quota_store.h"
#include "broker/cluster_member.h"
#include "broker/cluster_replication.h"
#include "broker/dispatcher.h"
#include "broker/dynamic_broker_config.h"
#include "broker/group_service.h"
#include "broker/log_dir_failure_handler.h"
#include "broker/producer_id_manager.h"
#include "broker/test_power_cut.h"
#include "broker/txn_service.h"
#include "broker/user_scram.h"
#include "cluster/embedded_store.h"
#include "cluster/producer_id_blocks.h"
#include "config/topic_config.h"
#include "net/server.h"
#include "security/authorizer_config.h"
#include "broker/listener_security.h"
#include "util/sd_notify.h"

namespace spool::broker {
namespace {

storage::LogManager::Options log_manager_options(const BrokerSettings& settings) {
  storage::LogManager::Options lo;
  lo.log_dirs = settings.log_dirs;
  lo.broker_id = settings.broker_id;
  lo.retention_check_interval_ms = settings.retention_check_interval_ms;
  lo.flush_checkpoint_interval_ms = settings.flush_checkpoint_interval_ms;
  lo.recovery_threads = settings.recovery_threads;
  lo.cleaner_enable = settings.cleaner_enable;
  lo.cleaner_backoff_ms = settings.cleaner_backoff_ms;
  lo.cleaner_dedupe_buffer_bytes = settings.cleaner_dedupe_buffer_bytes;
  lo.defaults = log_config_for(settings, {});
  return lo;
}

net::ServerOptions server_options(const BrokerSettings& settings) {
  net::ServerOptions so;
  so.listeners.clear();
  for (const ListenerSettings& l : settings.listeners) {
    net::ListenAddress& a = so.listeners.emplace_back();
    a.name = l.name;
    a.host = l.bind_host;
    a.port = l.port;
  }
  so.threads = settings.reactor_threads;
  so.max_request_bytes = settings.socket_request_max_bytes;
  so.idle_timeout_ms = settings.connections_max_idle_ms;
  return so;
}

// Cluster mode: producer ids come in blocks from /latest_producer_id_block.
ProducerIdManager::BlockSource cluster_block_source(ClusterMember& member) {
  return [&member]() -> Result<ProducerIdManager::Block> {
    auto block = cluster::claim_producer_id_block(member.store(), member.broker_id());
    if (!block) return block.status();
    return ProducerIdManager::Block{block->block_start, block->block_end};
  };
}

// A /config/changes notification for `topic`: its whole override set is
// applied live to the partitions hosted here (the local registry keeps the
// copy the partitions are reopened with). Topics not hosted here: nothing.
void apply_topic_config_change(BrokerContext& ctx, const std::string& topic,
                               const std::map<std::string, std::string>& overrides) {
  if (!ctx.replicas.topic(topic)) return;
  auto r = ctx.replicas.alter_topic_config(topic, overrides, false);
  if (!r) spdlog::error("applying the config change of topic '{}' failed: {}", topic, r.status().message());
}

// max.connections, max.connections.per.ip and its overrides,
// max.connection.creation.rate (all dynamic), and the listeners' own
// creation rates (listener.name.<l>.max.connection.creation.rate, static).
net::ConnectionLimits connection_limits(const config::BrokerConfig& cfg) {
  net::ConnectionLimits l;
  l.max_connections = cfg.max_connections();
  l.max_per_ip = cfg.max_connections_per_ip();
  l.per_ip_overrides = cfg.max_connections_per_ip_overrides();
  l.max_creation_rate = static_cast<int>(cfg.get_long("max.connection.creation.rate"));
  const auto& listeners = cfg.listeners();
  for (uint32_t i = 0; i < listeners.size(); ++i) {
    const std::string key = config::listener_key(listeners[i].name, "max.connection.creation.rate");
    if (cfg.is_set(key)) l.listener_creation_rates[i] = static_cast<int>(cfg.get_long(key));
    if (listeners[i].name == cfg.inter_broker_listener_name()) l.inter_broker_listener = i;
  }
  return l;
}

// What a dynamic broker config change reaches besides the topic defaults
// DynamicBrokerConfig keeps itself (Kafka's BrokerReconfigurables): topic
// configs rebuilt on new defaults, the producer expiration, the connection limits,
// the cleaner's backoff, the replication throttle rates (KIP-73 quotas), and
// the controller when unclean.leader.election.enable turned on.
struct DynamicTargets {
  ReplicaManager& replicas;
  storage::LogManager& logs;
  net::Server& server;
  ClusterMember* member;             // null on a single node
  ClusterReplication* replication;   // null on a single node
};

void apply_dynamic_change(const DynamicTargets& t, const config::BrokerConfig& was, const config::BrokerConfig& now) {
  if (config::effective_topic_config(was, {}) != config::effective_topic_config(now, {}))
    t.replicas.reapply_topic_defaults();
  storage::set_default_producer_expiration_ms(now.get_long("producer.id.expiration.ms"));
  // Only on a change of them: applying resolves the overrides' host names.
  if (connection_limits(was) != connection_limits(now)) t.server.set_connection_limits(connection_limits(now));
  t.logs.set_cleaner_backoff_ms(now.get_long("log.cleaner.backoff.ms"));
  if (t.replication != nullptr) {
    t.replication->set_throttle_rates(now.get_long("leader.replication.throttled.rate"),
                                      now.get_long("follower.replication.throttled.rate"));
  }
  constexpr const char* kUnclean = "unclean.leader.election.enable";
  if (t.member != nullptr && !was.get_bool(kUnclean) && now.get_bool(kUnclean)) {
    if (auto* controller = t.member->controller()) controller->unclean_leader_election_enabled(std::nullopt);
  }
}

}  // namespace

int run_broker(const config::BrokerConfig& cfg) {
  // Block the stop signals in every thread started from here on; main waits
  // for them with sigwait, so no async-signal-safety concerns arise.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  if (TestPowerCut::wanted()) sigaddset(&stop_signals, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  BrokerSettings settings = settings_from_config(cfg);
  if (settings.log_dirs.empty()) {
    spdlog::error("no log.dirs configured");
    return 1;
  }
  // What secures each listener (SASL mechanisms and PLAIN's users, TLS
  // stores, principal mapping), checked before anything opens. SCRAM
  // credentials come from the metadata store once it is open
  // (load_scram_users below).
  auto scram = std::make_shared<security::ScramCredentials>();
  auto secured = listener_security(cfg, settings, scram);
  if (!secured) {
    spdlog::error("refusing to start: {}", secured.status().message());
    return 1;
  }
  if (auto ib = inter_broker_security(cfg); ib) {
    settings.inter_broker_security = std::move(*ib);
  } else {
    spdlog::error("refusing to start: {}", ib.status().message());
    return 1;
  }
  // The ACL authorizer (authorizer.class.name); its bindings are loaded from
  // the metadata store once it is open (reload_acls below).
  std::unique_ptr<security::AclAuthorizer> authorizer;
  {
    auto options = security::authorizer_options(cfg);
    if (!options) {
      spdlog::error("refusing to start: {}", options.status().message());
      return 1;
    }
    if (*options) authorizer = std::make_unique<security::AclAuthorizer>(std::move(**options));
  }
  auto power_cut = TestPowerCut::from_env(settings.log_dirs);  // before any file opens
  if (!power_cut) {
    spdlog::error("{}", power_cut.status().message());
    return 1;
  }
  // The admin HTTP listener answers the probes from here on, before
  // ZooKeeper and log recovery: live, not ready while the broker starts.
  auto admin_http = AdminListener::start(cfg);
  if (!admin_http) {
    spdlog::error("{}", admin_http.status().message());
    return 1;
  }
  auto phase = [listener = admin_http->get()](const char* what) {
    if (listener != nullptr) listener->set_phase(what);
  };
  // Before any log opens: the retention pass expires idle producers with it.
  storage::set_default_producer_expiration_ms(settings.producer_id_expiration_ms);
  // Dynamic broker configs (/config/brokers), loaded from the metadata store
  // before any partition opens: topics start on the effective defaults.
  DynamicBrokerConfig dynamic(cfg, settings.broker_id, settings.topic_defaults);

  // Cluster mode (issue 13): the cluster id comes from ZooKeeper before any
  // log dir is opened, so meta.properties is checked against it (a dir of
  // another cluster or broker refuses the start, naming both).
  std::unique_ptr<ClusterMember> member;
  storage::LogManager::Options log_options = log_manager_options(settings);
  if (settings.cluster_mode()) {
    spdlog::info("cluster mode: joining the cluster at zookeeper.connect={}", settings.zookeeper_connect);
    phase("starting: connecting to ZooKeeper");
    member = std::make_unique<ClusterMember>(settings);
    bool stopped = false;
    auto cluster_id = member->connect(stop_signals, &stopped);
    if (!cluster_id) {
      if (stopped) return 0;
      spdlog::error("{}", cluster_id.status().message());
      return 1;
    }
    log_options.cluster_id = *cluster_id;
    if (Status s = dynamic.load(member->store()); !s) {
      spdlog::error("dynamic broker configs: {}", s.message());
      return 1;
    }
  }
  phase("starting: recovering the logs");
  auto logs = storage::LogManager::open(log_options);
  if (!logs) {
    spdlog::error("cannot open log dirs: {}", logs.status().message());
    return 1;
  }
  // Once the logs are open, a failed start still closes them cleanly.
  auto fail_start = [&logs](const std::string& why) {
    spdlog::error("{}", why);
    (*logs)->shutdown();
    return 1;
  };
  // The topics live in the embedded metadata store of the first log dir: in
  // single-node mode it is the broker's metadata store; in cluster mode only
  // the cache of the topics hosted here (topic_registry.h), ZooKeeper being
  // the cluster's store. An old spool-metadata.json is imported once.
  auto topic_store = cluster::EmbeddedStore::open(settings.log_dirs[0]);
  if (!topic_store) return fail_start("metadata store: " + topic_store.error().message);
  if (!member) {
    if (Status s = dynamic.load(**topic_store); !s) return fail_start("dynamic broker configs: " + s.message());
  }
  auto registry = TopicRegistry::open(**topic_store, settings.broker_id, std::filesystem::path(settings.log_dirs[0]));
  if (!registry)
    return fail_start("loading topics (metadata store " + (*topic_store)->file_path() + "): " + registry.status().message());
  // The replica manager owns the delayed operations (issue 3): parked
  // fetches complete when a watched partition's high watermark moves;
  // acks=all produces when it is durable.
  ReplicaManager replicas(settings, **registry, **logs);
  // Cluster mode: partitions come from LeaderAndIsr; followers fetch, and
  // leaders send ISR changes to the controller (before load(), which then
  // reads replication-offset-checkpoint).
  std::unique_ptr<ClusterReplication> replication;
  if (member) {
    replication = std::make_unique<ClusterReplication>(settings, *member);
    replicas.enable_cluster_mode(replication->hooks());
  }
  phase("starting: loading the partitions");
  if (Status s = replicas.load(); !s) return fail_start("loading topics failed: " + s.message());
  if (replication) replication->start(replicas);
  // A log dir that fails (KIP-112) takes its partitions offline and, in a
  // cluster, tells the controller.
  LogDirFailureHandler dir_failures(**logs, replicas, member ? &member->store() : nullptr, settings.broker_id);
  dir_failures.start();

  // Idempotent producer ids, unique across restarts (issue 6).
  auto producer_ids = member ? ProducerIdManager::with_block_source(cluster_block_source(*member))
                              : ProducerIdManager::open(settings.log_dirs[0]);
  if (!producer_ids) return fail_start("producer ids: " + producer_ids.status().message());

  FetchSessionCache::Options fso;
  fso.max_slots = settings.max_incremental_fetch_session_cache_slots;
  FetchSessionCache fetch_sessions(fso);
  // Consumer groups (issue 5): an existing __consumer_offsets is replayed in
  // the background; a missing one is created by the first FindCoordinator.
  GroupService groups(settings, replicas, group_coordinator_options(settings));
  groups.start();
  BrokerContext ctx{settings, **registry, **logs, replicas, fetch_sessions, &cfg};
  ctx.groups = &groups;
  ctx.producer_ids = producer_ids->get();
  // Transactions (issue 6): an existing __transaction_state is replayed in the
  // background (prepared transactions get their markers resent); a missing
  // one is created by the first FindCoordinator(TRANSACTION).
  TxnService txns(ctx, txn_coordinator_options(settings, [&groups](const std::string& group_id) {
                    return groups.coordinator().partition_for(group_id);
                  }));
  ctx.txns = &txns;
  txns.start();
  // Cluster mode: the coordinators follow the leadership of their internal
  // topics' partitions (Kafka's onLeadershipChange); loads and unloads run
  // in order on their own thread, never on the LeaderAndIsr handler's.
  AdminExecutor coordinator_loads(AdminExecutor::Options{"coordinator-loads", 65536});
  if (member) {
    replicas.set_leadership_listener([&](const TopicPartition& tp, bool leader, int32_t epoch) {
      const bool offsets = tp.topic == kConsumerOffsetsTopic;
      if (!offsets && tp.topic != kTransactionStateTopic) return;
      coordinator_loads.submit(
          (leader ? "load " : "unload ") + tp.to_string(),
          [&groups, &txns, tp, leader, epoch, offsets] {
            if (offsets)
              groups.on_leadership(tp.partition, leader);
            else
              txns.on_leadership(tp.partition, leader, epoch);
          },
          [tp](const Status& s) { spdlog::warn("coordinator {} not moved: {}", tp.to_string(), s.message()); });
    });
  }
  // Topic lifecycle work, off the reactors. Declared after the services its
  // jobs use, so that on an early return it stops before they go.
  AdminExecutor admin;
  ctx.admin = &admin;
  ctx.dynamic = &dynamic;
  ctx.config_store = topic_store->get();
  if (member) {
    ctx.cluster = member.get();
    ctx.metadata = &member->metadata();
    ctx.config_store = &member->store();
  }
  ctx.scram = scram.get();
  if (Status s = load_scram_users(*ctx.config_store, *scram); !s) {
    txns.shutdown();
    groups.shutdown();
    return fail_start(s.message());
  }
  ClientQuotaManager quotas(static_cast<int>(cfg.get_long("quota.window.num")),
                            cfg.get_long("quota.window.size.seconds") * 1000);
  if (Status s = load_client_quotas(*ctx.config_store, quotas); !s) {
    txns.shutdown();
    groups.shutdown();
    return fail_start(s.message());
  }
  ctx.quotas = &quotas;
  if (authorizer) {
    auto paths = ensure_acl_paths(*ctx.config_store);
    auto loaded = paths ? reload_acls(*ctx.config_store, *authorizer) : cluster::StoreResult<size_t>(paths.error());
    if (!loaded) {
      txns.shutdown();
      groups.shutdown();
      return fail_start("loading the ACLs: " + std::string(cluster::store_code_name(loaded.code())) + " " +
                        loaded.error().message);
    }
    spdlog::info("ACL authorizer on: {} bindings loaded", *loaded);
    ctx.authorizer = authorizer.get();
  }
  // Every listener of a cluster member also serves the other brokers (the
  // inter-broker APIs are advertised only then), as Kafka's ZooKeeper mode.
  std::vector<ServedListener> served;
  net::ServerOptions so = server_options(settings);
  for (size_t i = 0; i < settings.listeners.size(); ++i) {
    const ListenerSettings& l = settings.listeners[i];
    const ListenerSecurity& sec = (*secured)[i];
    served.push_back({l.name, member ? kClientAndInterBroker : kClientOnly, sec.sasl, sec.ssl_principal});
    if (sec.sasl) so.listeners[i].max_unauthenticated_request_bytes = sec.sasl->max_receive_bytes;
    so.listeners[i].tls = sec.tls;
  }
  Dispatcher dispatcher(ctx, std::move(served));
  if (int64_t bytes = cfg.get_long("queued.max.request.bytes"); bytes > 0)
    so.request_pool = std::make_shared<net::RequestMemoryPool>(bytes);
  // A cluster member binds now (its port goes into the registration) but
  // serves nobody before it is registered (Kafka: startProcessingRequests =
  // false until the end of KafkaServer.startup): until then it is no member,
  // its metadata is empty and the controller it will run does not exist.
  so.accept_on_start = member == nullptr;
  so.connection_limits = connection_limits(dynamic.current()->effective());
  net::Server server(so, dispatcher);
  // The whole admin HTTP API (admin.listener) from here: health, readiness,
  // metrics, views. The attachment is declared after the Kafka server, whose
  // connections it counts, so it detaches first on every way out of here.
  AdminStatus admin_status;
  if (*admin_http) {
    (*admin_http)->attach(std::make_unique<AdminApi>(
        ctx, admin_status,
        [&server, &settings] {
          std::vector<std::pair<std::string, size_t>> out;
          for (size_t i = 0; i < settings.listeners.size(); ++i)
            out.emplace_back(settings.listeners[i].name, server.connection_count(i));
          return out;
        },
        admin_auth_mode(cfg.get("admin.listener.authentication")).value_or(AdminAuthMode::kBasic)));
  }
  AdminAttachment admin_attachment(admin_http->get());
  if (Status s = server.start(); !s) {
    txns.shutdown();
    groups.shutdown();  // its loader reads the logs fail_start closes
    return fail_start(s.message());  // names listener, host and port
  }
  if (member) {
    // Registration last: clients learn of this broker only from it. The
    // listener accepts once it is done; requests sent meanwhile (the new
    // controller's too) wait in the kernel's backlog.
    ConfigChanges::Handlers handlers;
    handlers.topic = [&ctx](const std::string& topic, const cluster::EntityConfig& overrides) {
      apply_topic_config_change(ctx, topic, overrides);
    };
    handlers.broker = [&dynamic](const std::string& entity, const cluster::EntityConfig& configs) {
      dynamic.apply_stored(entity, configs);
    };
    handlers.user = [scram](const std::string& user, const cluster::EntityConfig& configs) {
      if (auto name = desanitize_entity_name(user); name && user != kDefaultEntityName)
        apply_scram_user(*scram, *name, configs);
    };
    handlers.quota = [&quotas](const std::string& entity, const cluster::EntityConfig& configs) {
      apply_client_quota(quotas, entity, configs);
    };
    Status s = member->start(std::move(handlers), authorizer.get());
    if (!s) {
      server.stop();
      admin.stop();
      replication->stop();
      member->stop();
      txns.shutdown();
      groups.shutdown();
      return fail_start(s.message());
    }
    server.start_accepting();
  }
  dynamic.set_applier([targets = DynamicTargets{replicas, **logs, server, member.get(), replication.get()}](
                          const config::BrokerConfigLayers& before, const config::BrokerConfigLayers& after) {
    apply_dynamic_change(targets, before.effective(), after.effective());
  });
  std::string serving;
  for (size_t i = 0; i < so.listeners.size(); ++i) {
    const auto& l = so.listeners[i];
    serving += fmt::format("{}{} {}:{}", i == 0 ? "" : ", ", l.name, l.host, server.port(i));
  }
  std::string advertised;
  for (const cluster::EndPoint& ep : settings.advertised) {
    advertised += (advertised.empty() ? "" : ", ") + cluster::endpoint_connection_string(ep);
  }
  spdlog::info("spool broker {} serving on {} (advertised {}), cluster id {}, data in {}", settings.broker_id, serving,
               advertised, (*logs)->cluster_id(), settings.log_dirs[0]);
  admin_status.serving.store(true);
  notify_ready();  // systemd Type=notify: every listener accepts now (util/sd_notify.h)

  int sig = 0;
  sigwait(&stop_signals, &sig);
  if (sig == SIGUSR2 && *power_cut) (*power_cut)->cut();
  spdlog::info("received signal {}, shutting down", sig);
  admin_status.stopping.store(true);
  notify_stopping();
  if (member) {
    // Kafka's controlled shutdown: leadership moves away while this broker
    // still serves (the controller's LeaderAndIsr makes it a follower).
    member->controlled_shutdown();
  }
  server.stop();
  // The running lifecycle job finishes, queued ones answer NOT_CONTROLLER
  // (to closed connections), before the services they use shut down.
  admin.stop();
  // Fetchers stop (no thread touches a log any more), then the controller
  // stops and the session closes (our ephemerals vanish).
  if (replication) replication->stop();
  if (member) member->stop();
  dynamic.set_applier({});  // no change can come any more (no handler, no listener)
  // No handler runs any more: pending joins are answered (to closed
  // connections) and the loader stops before the logs close.
  coordinator_loads.stop();
  txns.shutdown();
  groups.shutdown();
  dir_failures.stop();
  // Parked requests expire now (their connections are gone, so nothing is
  // sent); then the logs flush and write the clean-shutdown marker.
  replicas.shutdown();
  (*logs)->shutdown();
  spdlog::info("shutdown complete");
  return 0;
}

}  // namespace spool::broker
