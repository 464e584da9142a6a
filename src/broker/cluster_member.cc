#include "broker/cluster_member.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <future>
#include <random>

#include "cluster/alter_partition_wire.h"
#include "cluster/zk_data.h"
#include "cluster/zk_paths.h"

namespace spool::broker {

namespace {

constexpr int64_t kConnectRetryMs = 1000;  // between failed ZooKeeper connects
constexpr int64_t kRecoveryRetryMs = 1000;  // between failed reconnects/registrations

cluster::ZooKeeperOptions zk_options(const BrokerSettings& s) {
  cluster::ZooKeeperOptions o;
  o.connect = s.zookeeper_connect;
  o.session_timeout_ms = s.zookeeper_session_timeout_ms;
  o.connection_timeout_ms = s.zookeeper_connection_timeout_ms;
  return o;
}

cluster::RegistrarOptions registrar_options(const BrokerSettings& s, const std::string& proposed_cluster_id) {
  cluster::RegistrarOptions o;
  o.broker_id = s.broker_id;
  o.endpoints = s.advertised;  // every advertised listener, in order
  if (!s.broker_rack.empty()) o.rack = s.broker_rack;
  o.proposed_cluster_id = proposed_cluster_id;
  // A previous process of this broker may still own /brokers/ids/N for up to
  // a session timeout after kill -9: wait it out (twice, for slack).
  o.existing_wait_ms = 2 * static_cast<int64_t>(s.zookeeper_session_timeout_ms);
  return o;
}

std::string fresh_cluster_id() {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  return cluster::topic_id_to_text(cluster::make_topic_id([&rng] { return rng(); }));
}

client::NetworkClientOptions network_options(const BrokerSettings& s) {
  client::NetworkClientOptions o;
  o.client_id = "spool-broker-" + std::to_string(s.broker_id);
  o.request_timeout_ms = s.controller_socket_timeout_ms;
  o.security = s.inter_broker_security;
  return o;
}

}  // namespace

ClusterMember::ClusterMember(const BrokerSettings& settings)
    : settings_(settings), timer_(timer::SystemTimerOptions{"cluster-timer", 1, 20, nullptr}) {}

ClusterMember::~ClusterMember() { stop(); }

bool ClusterMember::sleep_unless_stopping(int64_t ms) {
  std::unique_lock lk(mu_);
  cv_.wait_for(lk, std::chrono::milliseconds(ms), [this] { return stopping_; });
  return !stopping_;
}

Result<std::string> ClusterMember::connect(const sigset_t& stop_signals, bool* stopped) {
  *stopped = false;
  for (int attempt = 1;; ++attempt) {
    auto store = cluster::ZooKeeperStore::open(zk_options(settings_));
    if (store) {
      store_ = std::move(*store);
      break;
    }
    if (store.code() == cluster::StoreCode::kInvalidArgument)
      return Status::error("zookeeper.connect=" + settings_.zookeeper_connect + ": " + store.error().message);
    spdlog::error("cannot reach ZooKeeper at {} (attempt {}): {}; retrying in {} ms", settings_.zookeeper_connect,
                  attempt, store.error().message, kConnectRetryMs);
    // The wait doubles as the stop-signal check (the signals are blocked in
    // every thread; main collects them here and later with sigwait).
    timespec ts{kConnectRetryMs / 1000, (kConnectRetryMs % 1000) * 1000000};
    siginfo_t info;
    if (sigtimedwait(&stop_signals, &info, &ts) > 0) {
      spdlog::info("received signal {} while waiting for ZooKeeper, not starting", info.si_signo);
      *stopped = true;
      return Status::error("stopped before ZooKeeper answered");
    }
  }
  spdlog::info("connected to ZooKeeper at {} (session 0x{:x})", settings_.zookeeper_connect, store_->session_id());
  // The inter-broker client (controller channel, replica fetchers,
  // AlterPartition, controlled shutdown): ready before the partitions load.
  timer_.start();
  network_ = std::make_unique<client::NetworkClient>(network_options(settings_));
  registrar_ = std::make_unique<cluster::BrokerRegistrar>(*store_, registrar_options(settings_, fresh_cluster_id()));
  auto id = registrar_->prepare();
  if (!id) return Status::error("cluster id from ZooKeeper at " + settings_.zookeeper_connect + ": " +
                                id.status().message());
  cluster_id_ = *id;
  return cluster_id_;
}

Status ClusterMember::start(ConfigChanges::Handlers config_handlers, security::AclAuthorizer* authorizer) {
  store_->set_session_listener([this](cluster::SessionState state) {
    std::lock_guard lk(mu_);
    if (state == cluster::SessionState::kExpired) {
      expired_ = true;
    } else if (state == cluster::SessionState::kDisconnected) {
      was_disconnected_ = true;
    } else if (state == cluster::SessionState::kConnected && was_disconnected_) {
      was_disconnected_ = false;
      reconnected_ = true;
    }
    cv_.notify_all();
  });
  auto epoch = registrar_->register_broker();
  if (!epoch) return Status::error("registering broker " + std::to_string(settings_.broker_id) + ": " +
                                   epoch.status().message());
  broker_epoch_ = *epoch;
  {
    std::lock_guard lk(gate_mu_);
    gate_.set_broker_epoch(*epoch);
  }
  spdlog::info("registered broker {} in ZooKeeper (broker epoch {}), cluster id {}", settings_.broker_id, *epoch,
               cluster_id_);

  cluster::controller::WireTransportOptions wo;
  wo.listener = settings_.controller_listener();
  wo.request_timeout_ms = settings_.controller_socket_timeout_ms;
  transport_ = std::make_unique<cluster::controller::WireTransport>(wo, *network_, timer_);
  channel_ = std::make_unique<cluster::controller::QueuedBrokerChannel>(*transport_);
  cluster::controller::ControllerConfig cc;
  cc.broker_id = settings_.broker_id;
  cc.inter_broker_listener = settings_.inter_broker_listener_name;
  cc.unclean_leader_election_enable = settings_.unclean_leader_election_enable;
  cc.delete_topic_enable = settings_.delete_topic_enable;
  cc.auto_leader_rebalance_enable = settings_.auto_leader_rebalance_enable;
  cc.leader_imbalance_per_broker_percentage = settings_.leader_imbalance_per_broker_percentage;
  cc.leader_imbalance_check_interval_ms = settings_.leader_imbalance_check_interval_ms;
  cluster::MetadataStore* store = store_.get();
  // The topic's override, else this broker's current default (dynamic broker
  // configs change it live; the controller asks at each election).
  cc.topic_unclean_leader_election = [store, defaults = settings_.topic_defaults](
                                         const std::string& topic) -> std::optional<bool> {
    constexpr const char* kKey = "unclean.leader.election.enable";
    const std::string path = cluster::zk_paths::config_topic(topic);
    if (auto node = store->get(path)) {
      auto config = cluster::decode_entity_config(path, node->data);
      if (config && config->count(kKey)) return config->at(kKey) == "true";
    }
    auto current = defaults->snapshot();
    if (auto it = current->find(kKey); it != current->end()) return it->second == "true";
    return std::nullopt;
  };
  controller_ = std::make_unique<cluster::controller::Controller>(cc, *store_, *channel_);
  controller_->start();
  serving_controller_.store(controller_.get());

  auto wake = [this] {
    std::lock_guard lk(mu_);
    config_changed_ = true;
    cv_.notify_all();
  };
  config_changes_ = std::make_unique<ConfigChanges>(*store_, std::move(config_handlers), wake);
  if (authorizer != nullptr) acl_changes_ = std::make_unique<AclChanges>(*store_, *authorizer, wake);
  {
    std::lock_guard lk(mu_);
    config_changed_ = true;  // the first poll: every notification present
  }
  recovery_ = std::thread([this] { recovery_loop(); });
  return Status::ok();
}

void ClusterMember::recovery_loop() {
  std::unique_lock lk(mu_);
  while (!stopping_) {
    cv_.wait(lk, [this] { return stopping_ || expired_ || reconnected_ || config_changed_; });
    if (stopping_) break;
    if (expired_) {
      expired_ = false;
      reconnected_ = false;
      lk.unlock();
      recover_expired_session();
      lk.lock();
      config_changed_ = true;  // the watch died with the session
      continue;
    }
    if (reconnected_) {
      reconnected_ = false;
      lk.unlock();
      spdlog::info("ZooKeeper connection re-established (same session)");
      controller_->session_reestablished();
      lk.lock();
      continue;
    }
    if (config_changed_) {
      config_changed_ = false;
      lk.unlock();
      auto r = config_changes_->poll();
      std::optional<cluster::StoreError> acl_error;
      if (acl_changes_) {
        if (auto a = acl_changes_->poll(); !a) acl_error = a.error();
      }
      lk.lock();
      if (acl_error) spdlog::warn("ACL changes: reading them failed: {}; retrying", acl_error->message);
      if (!r || acl_error) {
        if (!r) {
          spdlog::warn("config changes: reading {} failed: {}; retrying", cluster::zk_paths::kConfigChanges,
                       r.error().message);
        }
        lk.unlock();
        bool go_on = sleep_unless_stopping(kRecoveryRetryMs);
        lk.lock();
        if (!go_on) break;
        config_changed_ = true;
      }
    }
  }
}

void ClusterMember::recover_expired_session() {
  spdlog::warn("ZooKeeper session expired: resigning, reconnecting and registering again");
  controller_->session_expired();
  for (int attempt = 1;; ++attempt) {
    auto r = store_->reconnect();
    if (r) break;
    spdlog::error("cannot reach ZooKeeper at {} (attempt {}): {}; retrying in {} ms", settings_.zookeeper_connect,
                  attempt, r.error().message, kRecoveryRetryMs);
    if (!sleep_unless_stopping(kRecoveryRetryMs)) return;
  }
  for (int attempt = 1;; ++attempt) {
    auto epoch = registrar_->register_broker();
    if (epoch) {
      broker_epoch_ = *epoch;
      {
        std::lock_guard lk(gate_mu_);
        gate_.set_broker_epoch(*epoch);
      }
      spdlog::info("registered broker {} again (broker epoch {})", settings_.broker_id, *epoch);
      break;
    }
    spdlog::error("registering broker {} again (attempt {}): {}; retrying in {} ms", settings_.broker_id, attempt,
                  epoch.status().message(), kRecoveryRetryMs);
    if (!sleep_unless_stopping(kRecoveryRetryMs)) return;
  }
  controller_->session_reestablished();
}

protocol::ErrorCode ClusterMember::admit(int32_t controller_epoch, int64_t broker_epoch) {
  std::lock_guard lk(gate_mu_);
  return gate_.admit(controller_epoch, broker_epoch);
}

int32_t ClusterMember::highest_controller_epoch() const {
  std::lock_guard lk(gate_mu_);
  return gate_.controller_epoch();
}

bool ClusterMember::controlled_shutdown() {
  if (!settings_.controlled_shutdown_enable || !network_) return false;
  const int tries = std::max(1, settings_.controlled_shutdown_max_retries);
  for (int attempt = 1; attempt <= tries; ++attempt) {
    const int32_t controller_id = metadata_.controller_id();
    auto ep = controller_id < 0 ? std::nullopt : metadata_.endpoint(controller_id, settings_.controller_listener());
    std::string why;
    if (!ep) {
      why = "no controller known";
    } else {
      auto done = std::make_shared<std::promise<Result<cluster::ControlledShutdownReply>>>();
      auto fut = done->get_future();
      client::Node node{controller_id, ep->host, static_cast<uint16_t>(ep->port)};
      client::SendOptions so;
      so.min_version = cluster::kControlledShutdownVersion;
      so.max_version = cluster::kControlledShutdownVersion;
      network_->send<protocol::ControlledShutdownRequest, protocol::ControlledShutdownResponse>(
          node, cluster::controlled_shutdown_request(settings_.broker_id, broker_epoch_.load()),
          [done](Result<client::Reply<protocol::ControlledShutdownResponse>> r) {
            if (!r) {
              done->set_value(r.status());
              return;
            }
            done->set_value(cluster::parse_controlled_shutdown_response(r->message));
          },
          so);
      auto wait = std::chrono::milliseconds(settings_.controller_socket_timeout_ms + 1000);
      if (fut.wait_for(wait) != std::future_status::ready) {
        why = "no answer";
      } else if (auto reply = fut.get(); !reply) {
        why = reply.status().message();
      } else if (reply->error != protocol::ErrorCode::kNone) {
        why = "error " + std::string(protocol::error_name(reply->error));
      } else if (!reply->remaining.empty()) {
        why = std::to_string(reply->remaining.size()) + " partition(s) still led here";
      } else {
        spdlog::info("controlled shutdown succeeded (controller {})", controller_id);
        return true;
      }
    }
    spdlog::warn("controlled shutdown attempt {}/{} failed: {}", attempt, tries, why);
    if (attempt < tries) sleep_unless_stopping(settings_.controlled_shutdown_retry_backoff_ms);
  }
  spdlog::warn("controlled shutdown did not complete; proceeding with an unclean shutdown");
  return false;
}

void ClusterMember::stop() {
  {
    std::lock_guard lk(mu_);
    if (stopping_ && !recovery_.joinable() && !controller_) return;
    stopping_ = true;
    cv_.notify_all();
  }
  if (recovery_.joinable()) recovery_.join();
  serving_controller_.store(nullptr);
  if (controller_) controller_->shutdown();
  controller_.reset();
  channel_.reset();
  transport_.reset();
  if (network_) network_->shutdown();
  timer_.stop();
  network_.reset();
  config_changes_.reset();
  acl_changes_.reset();
  if (store_) store_->set_session_listener({});
  registrar_.reset();
  store_.reset();  // closes the session: /brokers/ids/N vanishes
}

}  // namespace spool::broker
