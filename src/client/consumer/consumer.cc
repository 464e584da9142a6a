#include "client/consumer/consumer.h"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <mutex>

#include "client/native_network.h"
#include "protocol/error_code.h"

namespace spool::client {

using protocol::ErrorCode;

namespace {

Status invalid_group_id() {
  return Status::error(
      "To use the group management or offset commit APIs, you must provide a valid group.id in the consumer "
      "configuration.",
      protocol::to_int(ErrorCode::kInvalidGroupId));
}

Status timeout_error(int64_t timeout_ms, const std::string& what) {
  return Status::error("Timeout of " + std::to_string(timeout_ms) + "ms expired before " + what,
                       protocol::to_int(ErrorCode::kRequestTimedOut));
}

// One asynchronous attempt on the loop, awaited here; retried after
// retry.backoff.ms while its error is retriable and time is left.
template <class T>
Result<T> run_async(ConsumerLoop& loop, Clock& clock, int64_t timeout_ms, int64_t backoff_ms, const std::string& what,
                    const std::function<void(std::function<void(Result<T>)>)>& attempt) {
  const int64_t deadline = clock.monotonic_ms() + timeout_ms;
  while (true) {
    struct Shared {
      std::mutex mu;
      std::condition_variable cv;
      std::optional<Result<T>> result;
    };
    auto shared = std::make_shared<Shared>();
    loop.post([attempt, shared] {
      attempt([shared](Result<T> r) {
        std::lock_guard<std::mutex> lock(shared->mu);
        shared->result.emplace(std::move(r));
        shared->cv.notify_all();
      });
    });
    std::unique_lock<std::mutex> lock(shared->mu);
    const int64_t left = deadline - clock.monotonic_ms();
    shared->cv.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(left, 0)),
                        [&] { return shared->result.has_value(); });
    if (!shared->result) return timeout_error(timeout_ms, what);
    Result<T> r = std::move(*shared->result);
    lock.unlock();
    if (r.is_ok()) return r;
    const auto code = static_cast<ErrorCode>(r.status().kafka_code());
    const int64_t now = clock.monotonic_ms();
    if (!protocol::is_retriable(code)) return r;
    if (now >= deadline) return timeout_error(timeout_ms, what + " (last error: " + r.status().message() + ")");
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(backoff_ms, deadline - now)));
  }
}

}  // namespace

Result<std::unique_ptr<Consumer>> Consumer::create(const config::PropertyList& properties, ConsumerHooks hooks,
                                                   std::vector<std::string>* warnings) {
  auto config = ConsumerConfig::from_properties(properties, warnings);
  if (!config) return config.status();
  return std::make_unique<Consumer>(std::move(*config), std::move(hooks));
}

Consumer::Consumer(ConsumerConfig config, ConsumerHooks hooks)
    : config_(std::move(config)),
      hooks_(std::move(hooks)),
      clock_(hooks_.clock ? hooks_.clock : system_clock()),
      own_network_(hooks_.network == nullptr
                       ? std::make_unique<NetworkClient>(native_network_options(config_, "spool-consumer"))
                       : nullptr),
      network_(hooks_.network != nullptr ? hooks_.network : own_network_.get()),
      loop_(std::make_unique<ConsumerLoop>(config_, clock_, *network_)) {
  loop_->start();
}

Consumer::~Consumer() { close(0); }

int64_t Consumer::api_timeout(int64_t timeout_ms) const {
  return timeout_ms < 0 ? config_.default_api_timeout_ms : timeout_ms;
}

Status Consumer::check_open() const {
  if (closed_.load()) return Status::error("This consumer has already been closed.");
  return Status::ok();
}

bool Consumer::run_app_events() {
  auto batch = loop_->call([this] {
    std::pair<std::deque<RebalanceEvent>, std::deque<std::function<void()>>> b;
    b.first.swap(loop_->ctx().events);
    b.second.swap(loop_->ctx().completions);
    return b;
  });
  if (batch.first.empty() && batch.second.empty()) return false;
  for (auto& fn : batch.second) fn();
  for (RebalanceEvent& e : batch.first) {
    if (listener_) {
      switch (e.kind) {
        case RebalanceEvent::Kind::kRevoked:
          listener_->on_partitions_revoked(e.partitions);
          break;
        case RebalanceEvent::Kind::kAssigned:
          listener_->on_partitions_assigned(e.partitions);
          break;
        case RebalanceEvent::Kind::kLost:
          listener_->on_partitions_lost(e.partitions);
          break;
      }
    }
    loop_->post(std::move(e.done));
  }
  return true;
}

Status Consumer::subscribe(const std::vector<std::string>& topics, std::shared_ptr<ConsumerRebalanceListener> listener) {
  if (auto s = check_open(); !s) return s;
  if (!config_.group_id) return invalid_group_id();
  if (topics.empty()) {
    unsubscribe();
    return Status::ok();
  }
  std::set<std::string> set;
  for (const std::string& t : topics) {
    if (t.find_first_not_of(" \t") == std::string::npos) {
      return Status::error("Topic collection to subscribe to cannot contain null or empty topic");
    }
    set.insert(t);
  }
  Status s = loop_->call([&] {
    Status st = loop_->subscriptions().subscribe(set);
    if (st) {
      for (const std::string& t : set) loop_->metadata().add_topic(t);
      loop_->coordinator()->on_subscription_change();
    }
    return st;
  });
  if (s) listener_ = std::move(listener);
  loop_->wake();
  return s;
}

Status Consumer::subscribe_pattern(const std::string& regex, std::shared_ptr<ConsumerRebalanceListener> listener) {
  if (auto s = check_open(); !s) return s;
  if (!config_.group_id) return invalid_group_id();
  Status s = loop_->call([&] {
    Status st = loop_->subscriptions().subscribe_pattern(regex);
    if (st) loop_->coordinator()->on_subscription_change();
    return st;
  });
  if (s) listener_ = std::move(listener);
  loop_->wake();
  return s;
}

Status Consumer::assign(const std::vector<TopicPartition>& partitions) {
  if (auto s = check_open(); !s) return s;
  if (partitions.empty()) {
    unsubscribe();
    return Status::ok();
  }
  for (const TopicPartition& tp : partitions) {
    if (tp.topic.find_first_not_of(" \t") == std::string::npos) {
      return Status::error("Topic partitions to assign to cannot have null or empty topic");
    }
  }
  const std::set<TopicPartition> set(partitions.begin(), partitions.end());
  Status s = loop_->call([&] {
    for (const TopicPartition& tp : loop_->subscriptions().assigned()) {
      if (set.count(tp) == 0) loop_->fetcher().clear_buffered(tp);
    }
    Status st = loop_->subscriptions().assign_from_user(set);
    if (st) {
      for (const TopicPartition& tp : set) loop_->metadata().add_topic(tp.topic);
    }
    return st;
  });
  loop_->wake();
  return s;
}

void Consumer::unsubscribe() {
  if (closed_.load()) return;
  const bool grouped = loop_->call([this] {
    return loop_->coordinator() != nullptr && loop_->subscriptions().has_auto_assigned();
  });
  if (grouped) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    loop_->post([this, done] { loop_->coordinator()->leave_group("the consumer unsubscribed from all topics", [done] { *done = true; }); });
    const int64_t deadline = clock_->monotonic_ms() + config_.default_api_timeout_ms;
    while (!done->load() && clock_->monotonic_ms() < deadline) {
      const uint64_t seen = loop_->progress();
      if (!run_app_events()) loop_->wait_progress(seen, 20);
    }
  }
  listener_.reset();
  loop_->call([this] {
    loop_->subscriptions().unsubscribe();
    loop_->fetcher().clear_all();
    return 0;
  });
}

std::set<TopicPartition> Consumer::assignment() {
  return loop_->call([this] { return loop_->subscriptions().assigned(); });
}

std::set<std::string> Consumer::subscription() {
  return loop_->call([this] {
    return loop_->subscriptions().has_auto_assigned() ? loop_->subscriptions().subscription() : std::set<std::string>{};
  });
}

void Consumer::wakeup() {
  wakeup_.store(true);
  loop_->wake();
}

Result<std::vector<ConsumerRecord>> Consumer::poll(int64_t timeout_ms) {
  if (auto s = check_open(); !s) return s;
  const bool none = loop_->call([this] {
    if (loop_->coordinator()) loop_->coordinator()->on_app_poll();
    return loop_->subscriptions().type() == SubscriptionType::kNone;
  });
  if (none) return Status::error("Consumer is not subscribed to any topics or assigned any partitions");
  loop_->wake();
  const int64_t deadline = clock_->monotonic_ms() + std::max<int64_t>(timeout_ms, 0);
  while (true) {
    if (wakeup_.exchange(false)) return Status::error("WakeupException: the consumer was woken up");
    const uint64_t seen = loop_->progress();
    if (run_app_events()) continue;
    struct Step {
      Status error;
      std::vector<ConsumerRecord> records;
    };
    Step step = loop_->call([this] {
      Step s;
      if (Status e = loop_->take_error(); !e.is_ok()) {
        s.error = e;
        return s;
      }
      auto r = loop_->fetcher().drain(config_.max_poll_records);
      if (!r) {
        s.error = r.status();
      } else {
        s.records = std::move(*r);
      }
      if (!s.records.empty()) loop_->fetcher().send_fetches();  // fetch ahead while the caller works
      return s;
    });
    if (!step.error.is_ok()) return step.error;
    if (!step.records.empty()) return std::move(step.records);
    const int64_t left = deadline - clock_->monotonic_ms();
    if (left <= 0) return std::vector<ConsumerRecord>{};
    loop_->wait_progress(seen, std::min<int64_t>(left, 50));
  }
}

Status Consumer::seek(const TopicPartition& tp, int64_t offset) {
  return seek(tp, OffsetAndMetadata{offset, -1, ""});
}

Status Consumer::seek(const TopicPartition& tp, const OffsetAndMetadata& offset) {
  if (auto s = check_open(); !s) return s;
  if (offset.offset < 0) return Status::error("seek offset must not be a negative number");
  return loop_->call([&] {
    SubscriptionState& subs = loop_->subscriptions();
    if (!subs.is_assigned(tp)) return Status::error("No current assignment for partition " + tp.to_string());
    auto leader = loop_->ctx().leader(tp);
    FetchPosition pos;
    pos.offset = offset.offset;
    pos.offset_epoch = offset.leader_epoch;
    pos.leader_id = leader ? leader->node.id : -1;
    pos.leader_epoch = leader ? leader->epoch : -1;
    if (offset.leader_epoch >= 0) {
      subs.seek_unvalidated(tp, pos);
    } else {
      subs.seek_validated(tp, pos);
    }
    loop_->fetcher().clear_buffered(tp);
    return Status::ok();
  });
}

Status Consumer::reset_to(const std::vector<TopicPartition>& partitions, OffsetResetStrategy strategy) {
  if (auto s = check_open(); !s) return s;
  Status s = loop_->call([&] {
    SubscriptionState& subs = loop_->subscriptions();
    std::vector<TopicPartition> targets = partitions;
    if (targets.empty()) {
      for (const TopicPartition& tp : subs.assigned()) targets.push_back(tp);
    }
    for (const TopicPartition& tp : targets) {
      if (!subs.is_assigned(tp)) return Status::error("No current assignment for partition " + tp.to_string());
    }
    for (const TopicPartition& tp : targets) {
      subs.request_reset(tp, strategy);
      loop_->fetcher().clear_buffered(tp);
    }
    return Status::ok();
  });
  loop_->wake();
  return s;
}

Status Consumer::seek_to_beginning(const std::vector<TopicPartition>& partitions) {
  return reset_to(partitions, OffsetResetStrategy::kEarliest);
}

Status Consumer::seek_to_end(const std::vector<TopicPartition>& partitions) {
  return reset_to(partitions, OffsetResetStrategy::kLatest);
}

Result<int64_t> Consumer::position(const TopicPartition& tp, int64_t timeout_ms) {
  if (auto s = check_open(); !s) return s;
  const int64_t timeout = api_timeout(timeout_ms);
  const int64_t deadline = clock_->monotonic_ms() + timeout;
  while (true) {
    const uint64_t seen = loop_->progress();
    auto r = loop_->call([&]() -> Result<int64_t> {
      SubscriptionState& subs = loop_->subscriptions();
      if (!subs.is_assigned(tp)) {
        return Status::error("You can only check the position for partitions assigned to this consumer.");
      }
      if (subs.has_valid_position(tp)) return subs.state(tp)->position->offset;
      if (Status e = loop_->take_error(); !e.is_ok()) return e;
      return Status::error("pending", protocol::to_int(ErrorCode::kRequestTimedOut));
    });
    if (r || r.status().message() != "pending") return r;
    run_app_events();
    const int64_t left = deadline - clock_->monotonic_ms();
    if (left <= 0) return timeout_error(timeout, "the position for partition " + tp.to_string() + " could be determined");
    loop_->wake();
    loop_->wait_progress(seen, std::min<int64_t>(left, 50));
  }
}

Result<std::map<TopicPartition, OffsetAndTimestamp>> Consumer::list_offsets(
    const std::map<TopicPartition, int64_t>& ts, int64_t timeout_ms) {
  if (auto s = check_open(); !s) return s;
  using M = std::map<TopicPartition, OffsetAndTimestamp>;
  for (const auto& entry : ts) {
    const std::string& topic = entry.first.topic;  // not a structured binding: lambdas capture it (clang < 16)
    loop_->call([&] {
      loop_->metadata().add_topic(topic);
      return 0;
    });
  }
  return run_async<M>(*loop_, *clock_, api_timeout(timeout_ms), config_.retry_backoff_ms, "fetching offsets",
                      [this, ts](std::function<void(Result<M>)> done) { loop_->offsets().list_offsets(ts, done); });
}

Result<std::map<TopicPartition, std::optional<OffsetAndTimestamp>>> Consumer::offsets_for_times(
    const std::map<TopicPartition, int64_t>& timestamps, int64_t timeout_ms) {
  for (const auto& [tp, t] : timestamps) {
    if (t < 0) {
      return Status::error("The target time for partition " + tp.to_string() + " is " + std::to_string(t) +
                           ". The target time cannot be negative.");
    }
  }
  auto r = list_offsets(timestamps, timeout_ms);
  if (!r) return r.status();
  std::map<TopicPartition, std::optional<OffsetAndTimestamp>> out;
  for (const auto& [tp, t] : timestamps) {
    auto it = r->find(tp);
    out[tp] = it == r->end() ? std::nullopt : std::optional<OffsetAndTimestamp>(it->second);
  }
  return out;
}

Result<std::map<TopicPartition, int64_t>> Consumer::beginning_offsets(const std::vector<TopicPartition>& partitions,
                                                                      int64_t timeout_ms) {
  std::map<TopicPartition, int64_t> ts;
  for (const TopicPartition& tp : partitions) ts[tp] = kEarliestTimestamp;
  auto r = list_offsets(ts, timeout_ms);
  if (!r) return r.status();
  std::map<TopicPartition, int64_t> out;
  for (const auto& [tp, o] : *r) out[tp] = o.offset;
  return out;
}

Result<std::map<TopicPartition, int64_t>> Consumer::end_offsets(const std::vector<TopicPartition>& partitions,
                                                                int64_t timeout_ms) {
  std::map<TopicPartition, int64_t> ts;
  for (const TopicPartition& tp : partitions) ts[tp] = kLatestTimestamp;
  auto r = list_offsets(ts, timeout_ms);
  if (!r) return r.status();
  std::map<TopicPartition, int64_t> out;
  for (const auto& [tp, o] : *r) out[tp] = o.offset;
  return out;
}

Result<int32_t> Consumer::partitions_for(const std::string& topic, int64_t timeout_ms) {
  if (auto s = check_open(); !s) return s;
  loop_->wake();
  return loop_->metadata().await_topic(topic, api_timeout(timeout_ms));
}

void Consumer::pause(const std::vector<TopicPartition>& partitions) {
  loop_->call([&] {
    for (const TopicPartition& tp : partitions) loop_->subscriptions().pause(tp, true);
    return 0;
  });
}

void Consumer::resume(const std::vector<TopicPartition>& partitions) {
  loop_->call([&] {
    for (const TopicPartition& tp : partitions) loop_->subscriptions().pause(tp, false);
    return 0;
  });
  loop_->wake();
}

std::set<TopicPartition> Consumer::paused() {
  return loop_->call([this] {
    std::set<TopicPartition> out;
    for (const auto& [tp, st] : loop_->subscriptions().partitions()) {
      if (st.paused) out.insert(tp);
    }
    return out;
  });
}

Status Consumer::commit_sync(int64_t timeout_ms) {
  auto offsets = loop_->call([this] { return loop_->subscriptions().all_consumed(); });
  return commit_sync(offsets, timeout_ms);
}

Status Consumer::commit_sync(const std::map<TopicPartition, OffsetAndMetadata>& offsets, int64_t timeout_ms) {
  if (closed_.load() && loop_ == nullptr) return check_open();
  if (!config_.group_id) return invalid_group_id();
  auto r = run_async<bool>(*loop_, *clock_, api_timeout(timeout_ms), config_.retry_backoff_ms,
                           "successfully committing offsets",
                           [this, offsets](std::function<void(Result<bool>)> done) {
                             loop_->coordinator()->commit(offsets, [done](Status s) {
                               if (s) {
                                 done(true);
                               } else {
                                 done(s);
                               }
                             });
                           });
  run_app_events();  // earlier commit_async callbacks, as Java's commitSync
  return r.status();
}

void Consumer::commit_async(CommitCallback callback) {
  auto offsets = loop_->call([this] { return loop_->subscriptions().all_consumed(); });
  commit_async(offsets, std::move(callback));
}

void Consumer::commit_async(const std::map<TopicPartition, OffsetAndMetadata>& offsets, CommitCallback callback) {
  loop_->post([this, offsets, callback] {
    auto complete = [this, offsets, callback](Status s) {
      loop_->ctx().completions.push_back([offsets, callback, s] {
        if (callback) callback(offsets, s);
      });
      loop_->ctx().notify_progress();
    };
    if (loop_->coordinator() == nullptr) {
      complete(invalid_group_id());
    } else {
      loop_->coordinator()->commit(offsets, complete);
    }
  });
  loop_->wake();
}

Result<std::map<TopicPartition, OffsetAndMetadata>> Consumer::committed(const std::set<TopicPartition>& partitions,
                                                                        int64_t timeout_ms) {
  if (auto s = check_open(); !s) return s;
  if (!config_.group_id) return invalid_group_id();
  using M = std::map<TopicPartition, OffsetAndMetadata>;
  return run_async<M>(*loop_, *clock_, api_timeout(timeout_ms), config_.retry_backoff_ms,
                      "the last committed offset for partitions could be determined",
                      [this, partitions](std::function<void(Result<M>)> done) {
                        loop_->coordinator()->fetch_committed(partitions, done);
                      });
}

std::string Consumer::member_id() {
  return loop_->call([this] { return loop_->coordinator() ? loop_->coordinator()->member_id() : std::string(); });
}

int32_t Consumer::generation() {
  return loop_->call([this] { return loop_->coordinator() ? loop_->coordinator()->generation() : -1; });
}

void Consumer::close(int64_t timeout_ms) {
  if (closed_.exchange(true)) return;
  const int64_t deadline = clock_->monotonic_ms() + std::max<int64_t>(timeout_ms, 0);
  if (config_.group_id && timeout_ms > 0) {
    if (config_.enable_auto_commit) {
      auto offsets = loop_->call([this] { return loop_->subscriptions().all_consumed(); });
      if (!offsets.empty()) {
        Status s = commit_sync(offsets, std::max<int64_t>(deadline - clock_->monotonic_ms(), 1));
        if (!s) spdlog::warn("consumer: the offset commit on close failed: {}", s.message());
      }
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    loop_->post([this, done] {
      loop_->coordinator()->leave_group("the consumer is being closed", [done] { *done = true; });
    });
    loop_->wake();
    while (!done->load() && clock_->monotonic_ms() < deadline) {
      const uint64_t seen = loop_->progress();
      if (!run_app_events()) loop_->wait_progress(seen, 20);
    }
  }
  loop_->stop();
  loop_->metadata().close(Status::error("Consumer closed"));
  if (own_network_) own_network_->shutdown();
}

}  // namespace spool::client
