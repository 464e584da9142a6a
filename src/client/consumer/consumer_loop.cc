#include "client/consumer/consumer_loop.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "client/consumer/cooperative_sticky_assignor.h"
#include "client/consumer/range_assignor.h"
#include "client/consumer/round_robin_assignor.h"
#include "client/consumer/sticky_assignor.h"
#include "protocol/error_code.h"

namespace spool::client {

std::vector<std::unique_ptr<PartitionAssignor>> make_assignors(const std::vector<std::string>& names) {
  std::vector<std::unique_ptr<PartitionAssignor>> out;
  for (const std::string& n : names) {
    if (n == "range") {
      out.push_back(std::make_unique<RangeAssignor>());
    } else if (n == "roundrobin") {
      out.push_back(std::make_unique<RoundRobinAssignor>());
    } else if (n == "sticky") {
      out.push_back(std::make_unique<StickyAssignor>());
    } else if (n == "cooperative-sticky") {
      out.push_back(std::make_unique<CooperativeStickyAssignor>());
    }
  }
  return out;
}

ConsumerLoop::ConsumerLoop(ConsumerConfig config, std::shared_ptr<Clock> clock, RequestSender& network)
    : config_(std::move(config)),
      clock_(clock ? std::move(clock) : system_clock()),
      network_(network),
      metadata_(ClientMetadataOptions{bootstrap_nodes(config_.bootstrap_servers), config_.metadata_max_age_ms,
                                      config_.retry_backoff_ms, config_.allow_auto_create_topics, clock_}),
      subscriptions_(config_.auto_offset_reset),
      ctx_{config_, clock_, network_, metadata_, subscriptions_,
           [this](std::function<void()> fn) { post(std::move(fn)); }, [this] { notify_progress(); }, {}, {}},
      fetcher_(ctx_),
      offsets_(ctx_) {
  if (config_.group_id) {
    coordinator_ = std::make_unique<ConsumerCoordinator>(ctx_, make_assignors(config_.assignment_strategies));
  }
}

ConsumerLoop::~ConsumerLoop() { stop(); }

void ConsumerLoop::post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    mailbox_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void ConsumerLoop::wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  cv_.notify_one();
}

uint64_t ConsumerLoop::progress() const {
  std::lock_guard<std::mutex> lock(mu_);
  return progress_;
}

void ConsumerLoop::notify_progress() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++progress_;
  }
  progress_cv_.notify_all();
}

void ConsumerLoop::wait_progress(uint64_t seen, int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  progress_cv_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(timeout_ms, 0)),
                        [&] { return progress_ != seen || stopping_; });
}

void ConsumerLoop::run_mailbox() {
  while (true) {
    std::function<void()> fn;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (mailbox_.empty()) return;
      fn = std::move(mailbox_.front());
      mailbox_.pop_front();
    }
    fn();
  }
}

Status ConsumerLoop::take_error() {
  if (!error_.is_ok()) {
    Status e = std::move(error_);
    error_ = Status::ok();
    return e;
  }
  if (Status e = offsets_.take_error(); !e.is_ok()) return e;
  if (coordinator_) {
    if (Status e = coordinator_->take_error(); !e.is_ok()) return e;
  }
  return Status::ok();
}

void ConsumerLoop::sync_metadata_topics() {
  if (subscriptions_.type() == SubscriptionType::kAutoPattern) {
    metadata_.set_fetch_all_topics(true);
    auto snap = metadata_.snapshot();
    std::vector<std::string> names;
    for (const auto& [name, t] : snap->topics) {
      if (t.error == 0) names.push_back(name);
    }
    if (snap->version > 0 && subscriptions_.update_pattern_topics(names, config_.exclude_internal_topics) &&
        coordinator_) {
      coordinator_->on_subscription_change();
    }
    return;
  }
  metadata_.set_fetch_all_topics(false);
  for (const std::string& t : subscriptions_.subscription()) metadata_.add_topic(t);
}

void ConsumerLoop::check_leader_epochs() {
  auto snap = metadata_.snapshot();
  if (snap->version == seen_metadata_version_) return;
  seen_metadata_version_ = snap->version;
  for (auto& [tp, st] : subscriptions_.partitions()) {
    const TopicMetadata* t = snap->topic(tp.topic);
    if (t == nullptr || tp.partition < 0 || static_cast<size_t>(tp.partition) >= t->partitions.size()) continue;
    const PartitionMetadata& pm = t->partitions[static_cast<size_t>(tp.partition)];
    if (subscriptions_.maybe_validate_for_leader(tp, pm.leader, pm.leader_epoch)) {
      spdlog::info("consumer: leader of {} changed (epoch {}): validating the position", tp.to_string(),
                   pm.leader_epoch);
      fetcher_.clear_buffered(tp);
    }
  }
}

void ConsumerLoop::initialize_positions() {
  if (coordinator_) return;  // the coordinator fetches committed offsets first
  std::vector<std::string> undefined;
  for (const TopicPartition& tp : subscriptions_.in_state(FetchState::kInitializing)) {
    if (subscriptions_.has_default_reset()) {
      subscriptions_.request_reset(tp, subscriptions_.default_reset());
    } else {
      undefined.push_back(tp.to_string());
      subscriptions_.request_reset(tp, OffsetResetStrategy::kNone);  // waits for a seek
    }
  }
  if (!undefined.empty() && error_.is_ok()) {
    std::string list;
    for (const std::string& s : undefined) list += (list.empty() ? "" : ", ") + s;
    error_ = Status::error("Undefined offset with no reset policy for partitions: [" + list + "]",
                           protocol::to_int(protocol::ErrorCode::kOffsetOutOfRange));
    notify_progress();
  }
}

int64_t ConsumerLoop::run_once() {
  run_mailbox();
  int64_t wait = 100;
  sync_metadata_topics();
  wait = std::min(wait, metadata_.poll(network_));
  check_leader_epochs();
  initialize_positions();
  if (coordinator_) wait = std::min(wait, coordinator_->poll());
  offsets_.reset_positions();
  offsets_.validate_positions();
  fetcher_.send_fetches();
  return std::max<int64_t>(wait, 1);
}

void ConsumerLoop::start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  thread_ = std::thread([this] {
    while (true) {
      const int64_t wait = run_once();
      std::unique_lock<std::mutex> lock(mu_);
      if (stopping_) break;
      cv_.wait_for(lock, std::chrono::milliseconds(wait), [&] { return woken_ || stopping_ || !mailbox_.empty(); });
      woken_ = false;
      if (stopping_) break;
    }
  });
  loop_thread_id_ = thread_.get_id();
}

void ConsumerLoop::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  progress_cv_.notify_all();
  if (thread_.joinable() && std::this_thread::get_id() != thread_.get_id()) thread_.join();
  run_mailbox();  // calls posted while stopping run here, so nobody waits for them forever
}

}  // namespace spool::client
