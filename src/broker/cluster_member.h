// ClusterMember: this broker's membership of a ZooKeeper-mode cluster (on
// when zookeeper.connect is set), in Kafka's KafkaServer.startup order:
//   connect()   opens the ZooKeeperStore, retrying (one clear error line per
//               attempt) until it answers or a stop signal arrives; creates
//               the top-level paths and returns the cluster id (/cluster/id,
//               a fresh one proposed when absent). The caller opens the logs
//               with that id (meta.properties check) only after this.
//   start()     registers /brokers/ids/N (every advertised listener, rack),
//               which yields the broker epoch; starts the Controller (over a
//               QueuedBrokerChannel on a WireTransport on its own
//               NetworkClient), the session recovery thread and the
//               config-change listener (topics and dynamic broker configs,
//               config_changes.h; and the ACLs', acl_changes.h).
//               Call it once the listener is
//               bound, and let it accept only after start() returned (the
//               controller's requests to this broker wait in the backlog).
//   controlled_shutdown()  Kafka's KafkaServer.controlledShutdown: asks the
//               controller (ControlledShutdown v3) to move leadership away,
//               up to controlled.shutdown.max.retries times with
//               controlled.shutdown.retry.backoff.ms between tries. Returns
//               whether it succeeded (the shutdown goes on either way).
//   stop()      stops the controller, the recovery thread, the client;
//               closes the session (the ephemeral /brokers/ids/N vanishes).
// Sessions: on kExpired the recovery thread resigns the controller,
// reconnects (retrying), registers again (new, larger broker epoch) and
// tells the controller; after a plain reconnect (kConnected following
// kDisconnected) it calls Controller::session_reestablished() too, so an
// election that failed on the lost connection is retried.
// Epoch gate: admit() is Kafka's controller/broker epoch check of the
// controller's requests (cluster/epoch_fencing.h), under a mutex.
// Threading: connect/start/controlled_shutdown/stop on the main thread;
// the accessors and admit() from any thread once start() returned.
// Failure: connect() and start() return a Status naming ZooKeeper's address
// or the path; nothing is served as a cluster member before registration.
#pragma once

#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "broker/acl_changes.h"
#include "broker/broker_settings.h"
#include "broker/config_changes.h"
#include "client/network_client.h"
#include "cluster/broker_registrar.h"
#include "cluster/controller/controller.h"
#include "cluster/controller/queued_broker_channel.h"
#include "cluster/controller/wire_transport.h"
#include "cluster/epoch_fencing.h"
#include "cluster/metadata_cache.h"
#include "cluster/zookeeper_store.h"
#include "timer/system_timer.h"
#include "util/status.h"

namespace spool::broker {

class ClusterMember {
 public:
  explicit ClusterMember(const BrokerSettings& settings);
  ~ClusterMember();
  ClusterMember(const ClusterMember&) = delete;
  ClusterMember& operator=(const ClusterMember&) = delete;

  // The cluster id; an error when a stop signal in `stop_signals` arrived
  // while retrying (*stopped set) or the chroot/top-level paths failed.
  Result<std::string> connect(const sigset_t& stop_signals, bool* stopped);
  // The handlers are called (on the recovery thread) with an entity's whole
  // config each time /config/changes announces a change of it.
  // `authorizer` (null: none): kept in step with the cluster's ACLs by an
  // AclChanges listener on the same thread.
  Status start(ConfigChanges::Handlers config_handlers, security::AclAuthorizer* authorizer = nullptr);
  bool controlled_shutdown();
  void stop();

  int32_t broker_id() const { return settings_.broker_id; }
  int64_t broker_epoch() const { return broker_epoch_.load(); }
  const std::string& cluster_id() const { return cluster_id_; }
  cluster::MetadataStore& store() { return *store_; }
  cluster::MetadataCache& metadata() { return metadata_; }
  // The controller once start() has made it (null before: the listener
  // serves other brokers' requests, e.g. an AlterPartition sent to this
  // broker's previous process, while registration still waits), and until
  // stop(). Any thread.
  cluster::controller::Controller* controller() { return serving_controller_.load(); }
  client::NetworkClient& network() { return *network_; }
  timer::SystemTimer& timer() { return timer_; }
  const BrokerSettings& settings() const { return settings_; }

  // The epoch check of a controller request (STALE_BROKER_EPOCH,
  // STALE_CONTROLLER_EPOCH or NONE; NONE raises the epoch seen).
  protocol::ErrorCode admit(int32_t controller_epoch, int64_t broker_epoch);
  int32_t highest_controller_epoch() const;

 private:
  void recovery_loop();
  void recover_expired_session();
  bool sleep_unless_stopping(int64_t ms);

  const BrokerSettings& settings_;
  std::unique_ptr<cluster::ZooKeeperStore> store_;
  std::unique_ptr<cluster::BrokerRegistrar> registrar_;
  std::string cluster_id_;
  std::atomic<int64_t> broker_epoch_{-1};
  cluster::MetadataCache metadata_;
  mutable std::mutex gate_mu_;
  cluster::ControllerEpochGate gate_;

  timer::SystemTimer timer_;
  std::unique_ptr<client::NetworkClient> network_;
  std::unique_ptr<cluster::controller::WireTransport> transport_;
  std::unique_ptr<cluster::controller::QueuedBrokerChannel> channel_;
  std::unique_ptr<cluster::controller::Controller> controller_;
  std::atomic<cluster::controller::Controller*> serving_controller_{nullptr};  // controller_ once started
  std::unique_ptr<ConfigChanges> config_changes_;
  std::unique_ptr<AclChanges> acl_changes_;

  // The recovery thread's inbox (store callbacks only set flags here).
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool expired_ = false;
  bool reconnected_ = false;
  bool config_changed_ = false;
  bool was_disconnected_ = false;
  std::thread recovery_;
};

}  // namespace spool::broker
