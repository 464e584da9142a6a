// Controller lifecycle: event dispatch, election, failover, resignation.
#include "cluster/controller/controller.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <random>


namespace spool::cluster::controller {

// Store watchers capture this, never the Controller: after the controller
// is gone a late watch finds no manager and does nothing.
struct Controller::WatchSink {
  std::mutex mu;
  ControllerEventManager* events = nullptr;
  void put(ControllerEvent e) {
    std::lock_guard<std::mutex> lock(mu);
    if (events) events->put(std::move(e));
  }
  void disable() {
    std::lock_guard<std::mutex> lock(mu);
    events = nullptr;
  }
};

Controller::Controller(ControllerConfig config, MetadataStore& store, BrokerChannel& channel)
    : config_(std::move(config)),
      store_(store),
      channel_(channel),
      zk_(store),
      batch_(ctx_, config_.broker_id, config_.inter_broker_listener),
      psm_(ctx_, zk_, batch_, channel, config_),
      rsm_(ctx_, zk_, batch_, channel, config_),
      sink_(std::make_shared<WatchSink>()),
      events_([this](ControllerEvent& e) { process(e); }) {
  sink_->events = &events_;
  random_ = config_.random;
  if (!random_) {
    auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
    random_ = [engine] { return (*engine)(); };
  }
  std::weak_ptr<WatchSink> weak = sink_;
  channel_.set_response_handler(
      [weak](int32_t broker, const ControllerRequest& request, const ControllerResponse& response) {
        if (auto s = weak.lock()) s->put(BrokerResponseEvent{broker, request, response});
      });
}

Controller::~Controller() { shutdown(); }

void Controller::start() {
  events_.put(StartupEvent{});
  events_.start();
  if (config_.auto_leader_rebalance_enable && config_.leader_imbalance_check_interval_ms > 0)
    rebalance_timer_ = std::thread([this] { rebalance_timer_loop(); });
}

void Controller::start_manual() { events_.put(StartupEvent{}); }

void Controller::shutdown() {
  if (!sink_) return;
  {
    std::lock_guard lk(timer_mu_);
    timer_stop_ = true;
  }
  timer_cv_.notify_all();
  if (rebalance_timer_.joinable()) rebalance_timer_.join();
  channel_.set_response_handler({});
  sink_->disable();
  // Resign on the event thread (or here, in manual mode) before stopping.
  events_.put(RunEvent{[this] {
    if (is_active()) on_resignation();
    active_id_ = -1;
  }});
  events_.run_pending();
  events_.wait_idle(std::chrono::seconds(5));
  events_.shutdown();
  sink_.reset();
}

void Controller::session_expired() { events_.clear_and_put(SessionExpiredEvent{}); }
void Controller::session_reestablished() { events_.put(ReelectEvent{}); }

void Controller::alter_partition(AlterPartitionRequest request,
                                 std::function<void(const AlterPartitionResult&)> callback) {
  events_.put(AlterPartitionEvent{std::move(request), std::move(callback)});
}

void Controller::controlled_shutdown(int32_t broker, int64_t broker_epoch,
                                     std::function<void(const ControlledShutdownResult&)> callback) {
  events_.put(ControlledShutdownEvent{broker, broker_epoch, std::move(callback)});
}

void Controller::unclean_leader_election_enabled(std::optional<std::string> topic) {
  events_.put(UncleanLeaderElectionEnableEvent{std::move(topic)});
}

Watcher Controller::watch_event(ControllerEvent e) {
  std::weak_ptr<WatchSink> weak = sink_;
  return [weak, e](WatchEvent, const std::string&) {
    if (auto s = weak.lock()) s->put(e);
  };
}

int64_t Controller::now_ms() const {
  if (config_.now_ms) return config_.now_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<int32_t> Controller::all_broker_ids() const {
  std::vector<int32_t> out;
  for (const auto& [id, info] : ctx_.brokers) out.push_back(id);
  return out;
}

void Controller::send_update_metadata(const std::vector<int32_t>& brokers,
                                      const std::vector<TopicPartition>& partitions) {
  batch_.clear();
  batch_.add_update_metadata(brokers, partitions);
  batch_.send(channel_, ctx_.epoch);
}

void Controller::process(ControllerEvent& event) {
  std::visit(
      [this](auto& ev) {
        using T = std::decay_t<decltype(ev)>;
        if constexpr (std::is_same_v<T, StartupEvent>) {
          process_startup();
        } else if constexpr (std::is_same_v<T, ControllerChangeEvent>) {
          maybe_resign();
        } else if constexpr (std::is_same_v<T, ReelectEvent>) {
          process_reelect();
        } else if constexpr (std::is_same_v<T, SessionExpiredEvent>) {
          process_expire();
        } else if constexpr (std::is_same_v<T, BrokerChangeEvent>) {
          process_broker_change();
        } else if constexpr (std::is_same_v<T, BrokerModificationEvent>) {
          process_broker_modification(ev.broker);
        } else if constexpr (std::is_same_v<T, TopicChangeEvent>) {
          process_topic_change();
        } else if constexpr (std::is_same_v<T, PartitionModificationsEvent>) {
          process_partition_modifications(ev.topic);
        } else if constexpr (std::is_same_v<T, TopicDeletionEvent>) {
          process_topic_deletion();
        } else if constexpr (std::is_same_v<T, UncleanLeaderElectionEnableEvent>) {
          process_unclean_enable(ev);
        } else if constexpr (std::is_same_v<T, BrokerResponseEvent>) {
          process_broker_response(ev);
        } else if constexpr (std::is_same_v<T, AlterPartitionEvent>) {
          process_alter_partition(ev);
        } else if constexpr (std::is_same_v<T, ControlledShutdownEvent>) {
          process_controlled_shutdown(ev);
        } else if constexpr (std::is_same_v<T, ElectLeadersEvent>) {
          process_elect_leaders(ev);
        } else if constexpr (std::is_same_v<T, AutoLeaderRebalanceEvent>) {
          process_auto_leader_rebalance();
        } else if constexpr (std::is_same_v<T, AlterReassignmentsEvent>) {
          process_alter_reassignments(ev);
        } else if constexpr (std::is_same_v<T, ListReassignmentsEvent>) {
          process_list_reassignments(ev);
        } else if constexpr (std::is_same_v<T, ZkReassignmentEvent>) {
          process_zk_reassignment();
        } else if constexpr (std::is_same_v<T, LogDirEventNotificationEvent>) {
          process_log_dir_event_notification();
        } else if constexpr (std::is_same_v<T, RunEvent>) {
          if (ev.fn) ev.fn();
        }
      },
      event);
  if (zk_.fenced() && is_active()) {
    // Kafka's ControllerMovedException: another controller wrote a newer
    // /controller_epoch. Stop being the controller now.
    spdlog::warn("controller {}: fenced by a newer controller epoch while processing {}; resigning",
                 config_.broker_id, event_name(event));
    maybe_resign();
    if (is_active()) {
      // /controller still names us but our epoch is stale: give it up so a
      // fresh election runs.
      on_resignation();
      active_id_ = -1;
      zk_.remove_controller_if(config_.broker_id);
    }
  }
}

// elect() arms the /controller watch: created/changed -> ControllerChange,
// deleted -> Reelect.
void Controller::process_startup() { elect(); }

Watcher Controller::controller_znode_watch() {
  std::weak_ptr<WatchSink> weak = sink_;
  return [weak](WatchEvent e, const std::string&) {
    auto s = weak.lock();
    if (!s) return;
    if (e == WatchEvent::kDeleted) {
      s->put(ReelectEvent{});
    } else if (e != WatchEvent::kSessionLost) {
      s->put(ControllerChangeEvent{});
    }
  };
}

void Controller::elect() {
  Watcher w = controller_znode_watch();
  int32_t current = zk_.controller_id(w);
  active_id_ = current;
  if (current != -1) {
    spdlog::debug("controller: broker {} is the controller; not electing", current);
    return;
  }
  ControllerZk::Won won;
  ZkWrite r = zk_.register_controller(config_.broker_id, now_ms(), &won);
  if (r == ZkWrite::kOk) {
    ctx_.reset();
    ctx_.epoch = won.epoch;
    ctx_.epoch_zk_version = won.epoch_zk_version;
    zk_.set_epoch_zk_version(won.epoch_zk_version);
    epoch_ = won.epoch;
    active_id_ = config_.broker_id;
    spdlog::info("controller: broker {} elected controller, epoch {} (zkVersion {})", config_.broker_id, won.epoch,
                 won.epoch_zk_version);
    on_failover();
    return;
  }
  if (r == ZkWrite::kControllerMoved) {
    active_id_ = zk_.controller_id();
    spdlog::debug("controller: broker {} was elected instead of {}", active_id_.load(), config_.broker_id);
    return;
  }
  spdlog::error("controller: election failed on broker {}; will retry on the next /controller change",
                config_.broker_id);
  active_id_ = zk_.controller_id();
}

void Controller::initialize_context() {
  auto brokers = zk_.brokers(watch_event(BrokerChangeEvent{}));
  if (brokers.is_ok()) {
    for (auto& [id, info] : brokers.value()) {
      zk_.broker(id, watch_event(BrokerModificationEvent{id}));
      ctx_.brokers[id] = info;
    }
  } else {
    spdlog::error("controller: reading /brokers/ids: {}", brokers.error().message);
  }
  auto topics = zk_.topics(watch_event(TopicChangeEvent{}));
  if (topics.is_ok()) {
    for (const auto& t : topics.value()) load_topic(t, nullptr);
  } else {
    spdlog::error("controller: reading /brokers/topics: {}", topics.error().message);
  }
  for (const auto& [tp, reps] : ctx_.assignment) {
    auto st = zk_.partition_state(tp);
    if (st.is_ok() && st.value()) ctx_.leadership[tp] = *st.value();
  }
  for (const auto& [id, info] : ctx_.brokers) channel_.add_broker(info);
}

void Controller::on_failover() {
  // Arms the /log_dir_event_notification watch and drops the events already
  // there: the LeaderAndIsr below goes to every online replica anyway, so
  // each broker reports its offline dirs (Kafka deletes them the same way).
  clear_log_dir_events();
  if (zk_.fenced()) return;
  initialize_context();
  // Topic deletions in progress (Kafka's fetchTopicDeletionsInProgress).
  auto deletions = zk_.topic_deletions(watch_event(TopicDeletionEvent{}));
  if (deletions.is_ok()) {
    for (const auto& t : deletions.value()) {
      if (!ctx_.has_topic(t) || !config_.delete_topic_enable) {
        zk_.delete_topic_deletion(t);
      } else {
        ctx_.topics_to_delete.insert(t);
      }
    }
  }
  if (zk_.fenced()) return;
  // UpdateMetadata (live brokers) before any LeaderAndIsr: brokers need the
  // live-broker list to act on LeaderAndIsr.
  send_update_metadata(all_broker_ids(), {});
  rsm_.startup();
  if (zk_.fenced()) return;
  psm_.startup();
  if (zk_.fenced()) return;
  spdlog::info("controller {}: ready with epoch {}: {} brokers, {} topics, {} partitions", config_.broker_id,
               ctx_.epoch, ctx_.brokers.size(), ctx_.topic_ids.size(), ctx_.assignment.size());
  resume_reassignments();
  if (zk_.fenced()) return;
  try_topic_deletion();
}

void Controller::on_resignation() {
  spdlog::info("controller {}: resigning (epoch {})", config_.broker_id, ctx_.epoch);
  channel_.remove_all();
  batch_.clear();
  ctx_.reset();
  zk_.set_epoch_zk_version(-1);
  epoch_ = 0;
}

void Controller::maybe_resign() {
  const bool was_active = is_active();
  Watcher w = controller_znode_watch();
  active_id_ = zk_.controller_id(w);
  if (was_active && !is_active()) on_resignation();
}

void Controller::process_reelect() {
  maybe_resign();
  elect();
}

void Controller::process_expire() {
  const bool was_active = is_active();
  active_id_ = -1;
  if (was_active) on_resignation();
}

}  // namespace spool::cluster::controller
