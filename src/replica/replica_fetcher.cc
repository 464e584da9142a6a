#include "replica/replica_fetcher.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <functional>

#include "replica/local_log_view.h"
#include "replica/truncation.h"

namespace spool::replica {

using protocol::ErrorCode;

namespace {
int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

// One fetcher thread: the partitions it follows from one leader.
class ReplicaFetcherManager::Thread {
 public:
  Thread(client::Node leader, const FetcherOptions& options, std::shared_ptr<LeaderEndpoint> endpoint)
      : leader_(std::move(leader)), options_(options), endpoint_(std::move(endpoint)) {
    thread_ = std::thread([this] { run(); });
  }
  ~Thread() { stop(); }

  void add(FollowedPartition p) {
    std::unique_lock lk(mu_);
    Entry e;
    e.state.tp = p.tp;
    e.state.topic_id = p.topic_id;
    e.state.current_leader_epoch = p.leader_epoch;
    e.state.durable_writes = p.durable_writes;
    e.state.phase = FetchPhase::kTruncating;  // start_fetching decides first
    e.hw = p.high_watermark;
    e.generation = ++generations_;
    e.followed = std::move(p);
    entries_[e.state.tp] = std::move(e);
    cv_.notify_all();
  }
  // Never waits for a Fetch in flight: every use of a partition's log is
  // under mu_, and an answer is applied only to the entry (generation) it
  // was asked for, so once this returns the thread never touches the log.
  bool remove(const TopicPartition& tp) {
    std::lock_guard lk(mu_);
    entries_.erase(tp);
    cv_.notify_all();
    return entries_.empty();
  }
  std::optional<FollowerPartition> state(const TopicPartition& tp) const {
    std::lock_guard lk(mu_);
    auto it = entries_.find(tp);
    if (it == entries_.end()) return std::nullopt;
    return it->second.state;
  }
  // Asks the thread to end after its current round (it may be waiting for
  // a Fetch answer: up to replica.socket.timeout.ms); does not wait.
  void request_stop() {
    std::lock_guard lk(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  bool finished() const { return finished_.load(); }
  void stop() {
    request_stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  struct Entry {
    FollowerPartition state;
    FollowedPartition followed;
    int64_t hw = 0;
    int64_t leader_hw = -1;   // the leader's high watermark in its last answer
    uint64_t generation = 0;  // which add() this entry is
  };

  // KIP-73: the partition's fetched bytes count against the follower quota.
  bool counts_against_quota(const Entry& e) const {
    if (!options_.quota || !e.followed.throttled || !e.followed.throttled()) return false;
    return e.leader_hw < 0 || e.state.fetch_offset < e.leader_hw;  // not caught up
  }

  void run() {
    while (true) {
      const bool did = round();
      std::unique_lock lk(mu_);
      if (stopping_) break;
      // Nothing ready (all parked or backing off): wait a little.
      if (!did) cv_.wait_for(lk, std::chrono::milliseconds(std::min<int64_t>(options_.backoff_ms, 100)));
      if (stopping_) break;
    }
    finished_.store(true);
  }

  // Applies a truncation decision to the log; false on a storage error.
  bool apply(Entry& e, const FollowerAction& a) {
    storage::Log& log = *e.followed.log;
    Status s = Status::ok();
    switch (a.kind) {
      case FollowerAction::Kind::kTruncate:
        if (a.offset < log.log_end_offset())
          spdlog::info("{}: truncating from {} to {} (leader epoch {})", e.state.tp.to_string(), log.log_end_offset(),
                       a.offset, e.state.current_leader_epoch);
        s = log.truncate_to(a.offset);
        break;
      case FollowerAction::Kind::kTruncateFully:
        spdlog::warn("{}: log ends below the leader's log start; restarting it empty at {}", e.state.tp.to_string(),
                     a.offset);
        s = log.truncate_fully_and_start_at(a.offset);
        break;
      case FollowerAction::Kind::kAskEpoch:
        // Truncation on fetch (see the header): fetch with LastFetchedEpoch
        // and let the leader's DivergingEpoch decide. Otherwise the
        // partition was never handed here: truncate_by_epochs() asks.
      case FollowerAction::Kind::kFetch:
        break;
      case FollowerAction::Kind::kPark:
        spdlog::warn("{}: FENCED_LEADER_EPOCH at epoch {}; parked until the next LeaderAndIsr", e.state.tp.to_string(),
                     e.state.current_leader_epoch);
        e.state.phase = FetchPhase::kParked;
        return true;
      case FollowerAction::Kind::kRetry:
        e.state.backoff_until_ms = steady_ms() + options_.backoff_ms;
        return true;
      case FollowerAction::Kind::kAskLeaderOffsets: {
        auto off = endpoint_->leader_offsets(leader_, e.state.tp, e.state.current_leader_epoch);
        if (!off) {
          spdlog::warn("{}: leader offsets: {}", e.state.tp.to_string(), off.status().message());
          e.state.backoff_until_ms = steady_ms() + options_.backoff_ms;
          return true;
        }
        if (off->log_end_offset < log.log_end_offset())
          spdlog::warn("{}: leader log ends at {} below ours ({}): unclean leader election, offsets [{}, {}) are lost "
                       "here",
                       e.state.tp.to_string(), off->log_end_offset, log.log_end_offset(), off->log_end_offset,
                       log.log_end_offset());
        return apply(e, on_offset_out_of_range(LocalLogView::of_log(log), off->log_start_offset, off->log_end_offset));
      }
    }
    if (!s) {
      spdlog::error("{}: truncation failed: {}", e.state.tp.to_string(), s.message());
      e.state.backoff_until_ms = steady_ms() + options_.backoff_ms;
      return false;
    }
    // An incomplete OffsetForLeaderEpoch round asks again (for the latest
    // epoch left after the cut) before fetching.
    const bool ask_again = a.kind == FollowerAction::Kind::kTruncate && a.ask_again;
    e.state.phase = ask_again ? FetchPhase::kTruncating : FetchPhase::kFetching;
    refresh(e);
    if (e.hw > log.log_end_offset()) set_hw(e, log.log_end_offset());
    return true;
  }

  void refresh(Entry& e) {
    storage::Log& log = *e.followed.log;
    auto view = LocalLogView::of_log(log);
    e.state.fetch_offset = view.log_end_offset;
    e.state.log_start_offset = view.log_start_offset;
    e.state.synced_offset = view.synced_offset;
    // Without truncation on fetch the request carries no LastFetchedEpoch
    // (as Fetch before v12), so the leader never answers DivergingEpoch.
    e.state.last_fetched_epoch = options_.truncate_on_fetch ? view.last_batch_epoch() : std::nullopt;
  }

  // The OffsetForLeaderEpoch round of the partitions still Truncating when
  // truncation on fetch is off; false when nothing was asked.
  bool truncate_by_epochs(int64_t now) {
    if (options_.truncate_on_fetch) return false;
    std::vector<EpochQuery> queries;
    std::map<TopicPartition, uint64_t> asked;  // the generation each partition was asked for
    {
      std::lock_guard lk(mu_);
      if (stopping_) return false;
      for (auto& [tp, e] : entries_) {
        if (e.state.phase != FetchPhase::kTruncating || e.state.backoff_until_ms > now) continue;
        FollowerAction a = ask_epoch(LocalLogView::of_log(*e.followed.log), e.hw);
        if (a.kind != FollowerAction::Kind::kAskEpoch) {
          apply(e, a);  // no epochs: to the high watermark
          continue;
        }
        spdlog::info("{}: OffsetForLeaderEpoch: asking broker {} where epoch {} ends", tp.to_string(), leader_.id,
                     a.epoch);
        queries.push_back(EpochQuery{tp, e.state.current_leader_epoch, a.epoch});
        asked[tp] = e.generation;
      }
    }
    if (queries.empty()) return false;
    auto answers = endpoint_->epoch_end_offsets(leader_, queries);
    std::lock_guard lk(mu_);
    if (!answers) {
      spdlog::warn("OffsetForLeaderEpoch to broker {} failed: {}", leader_.id, answers.status().message());
      for (const auto& q : queries)
        if (auto it = entries_.find(q.tp); it != entries_.end())
          it->second.state.backoff_until_ms = steady_ms() + options_.backoff_ms;
      return true;
    }
    for (const auto& q : queries) {
      auto it = entries_.find(q.tp);
      // Only the entry asked for, still truncating at the same epoch.
      if (it == entries_.end() || it->second.generation != asked[q.tp]) continue;
      Entry& e = it->second;
      if (e.state.phase != FetchPhase::kTruncating || e.state.current_leader_epoch != q.current_leader_epoch) continue;
      const EpochAnswer* answer = nullptr;
      for (const auto& ans : *answers)
        if (ans.tp == q.tp) answer = &ans;
      if (answer == nullptr) {
        e.state.backoff_until_ms = steady_ms() + options_.backoff_ms;
        continue;
      }
      auto view = LocalLogView::of_log(*e.followed.log);
      apply(e, on_epoch_answer(view, answer->error, EpochEndOffset{answer->epoch, answer->end_offset}, e.hw,
                               q.current_leader_epoch, e.state.current_leader_epoch));
    }
    return true;
  }

  void set_hw(Entry& e, int64_t hw) {
    e.hw = hw;
    if (e.followed.set_high_watermark) e.followed.set_high_watermark(hw);
  }

  // One round; false when nothing was sent.
  bool round() {
    const int64_t now = steady_ms();
    const bool asked_epochs = truncate_by_epochs(now);
    std::vector<FollowerPartition> ready;
    std::map<TopicPartition, uint64_t> asked;  // the generation each partition was asked for
    {
      std::lock_guard lk(mu_);
      if (stopping_) return false;
      for (auto& [tp, e] : entries_) {
        if (e.state.phase == FetchPhase::kTruncating && options_.truncate_on_fetch) {
          auto view = LocalLogView::of_log(*e.followed.log);
          apply(e, start_fetching(view, e.hw));
        }
        if (e.state.phase == FetchPhase::kFetching && e.state.durable_writes && !fsynced_to_log_end(e.state)) {
          // Spool's rule (fetch_builder.h): the fetch offset is reported
          // only once it is on disk.
          if (Status s = e.followed.log->flush(); !s)
            spdlog::error("{}: fsync failed: {}", tp.to_string(), s.message());
          refresh(e);
        }
        if (ready_to_fetch(e.state, now)) {
          if (counts_against_quota(e) && options_.quota->exceeded()) continue;  // throttled this round
          ready.push_back(e.state);
          asked[tp] = e.generation;
        }
      }
    }
    if (ready.empty()) return asked_epochs;
    auto request = build_replica_fetch(options_.fetch, options_.fetch_version, ready, now);
    request.replica_id = options_.fetch.replica_id;  // any negotiated version reads it
    request.replica_state.replica_id = options_.fetch.replica_id;
    request.replica_state.replica_epoch = options_.fetch.broker_epoch;
    auto answer = endpoint_->fetch(leader_, request);
    std::lock_guard lk(mu_);
    if (!answer || answer->response.error_code != ErrorCode::kNone) {
      if (!answer)
        spdlog::warn("replica fetch from broker {} failed: {}", leader_.id, answer.status().message());
      else
        spdlog::warn("replica fetch from broker {}: error {}", leader_.id, static_cast<int>(answer->response.error_code));
      for (const auto& r : ready)
        if (auto it = entries_.find(r.tp); it != entries_.end())
          it->second.state.backoff_until_ms = steady_ms() + options_.backoff_ms;
      return true;
    }
    for (auto& topic : answer->response.responses) {
      for (auto& pd : topic.partitions) {
        Entry* e = nullptr;
        for (auto& [tp, entry] : entries_) {
          const bool same_topic =
              answer->version >= 13 ? entry.state.topic_id == topic.topic_id : tp.topic == topic.topic;
          if (same_topic && tp.partition == pd.partition_index) e = &entry;
        }
        if (!e) continue;  // removed meanwhile
        // Only the entry the request was built for, at the offset it asked
        // (Kafka's processFetchRequest check): a partition removed and added
        // again meanwhile, or moved by a truncation, is asked again.
        auto a = asked.find(e->state.tp);
        if (a == asked.end() || a->second != e->generation) continue;
        int32_t request_epoch = e->state.current_leader_epoch;
        int64_t request_offset = e->state.fetch_offset;
        for (const auto& r : ready)
          if (r.tp == e->state.tp) {
            request_epoch = r.current_leader_epoch;
            request_offset = r.fetch_offset;
          }
        if (request_epoch != e->state.current_leader_epoch || request_offset != e->state.fetch_offset) continue;
        handle(*e, pd, request_epoch);
      }
    }
    return true;
  }

  void handle(Entry& e, protocol::FetchResponse::PartitionData& pd, int32_t request_epoch) {
    storage::Log& log = *e.followed.log;
    if (pd.error_code != ErrorCode::kNone) {
      apply(e, on_fetch_error(pd.error_code, request_epoch, e.state.current_leader_epoch));
      return;
    }
    const bool diverging = pd.diverging_epoch.epoch >= 0 || pd.diverging_epoch.end_offset >= 0;
    if (diverging) {
      auto view = LocalLogView::of_log(log);
      apply(e, on_diverging_epoch(view, {pd.diverging_epoch.epoch, pd.diverging_epoch.end_offset},
                                  e.state.fetch_offset));
      return;
    }
    const bool throttled = counts_against_quota(e);
    e.leader_hw = pd.high_watermark;
    if (pd.records && pd.records->size() > 0) {
      auto bytes = pd.records->bytes();
      if (throttled) options_.quota->record(static_cast<int64_t>(bytes.size()));
      auto appended = log.append_as_follower(std::span<const uint8_t>(bytes.data(), bytes.size()));
      if (!appended) {
        spdlog::error("{}: follower append at {} failed: {}", e.state.tp.to_string(), e.state.fetch_offset,
                      appended.status().message());
        e.state.backoff_until_ms = steady_ms() + options_.backoff_ms;
        return;
      }
    }
    if (pd.log_start_offset > log.log_start_offset() && pd.log_start_offset <= log.log_end_offset())
      (void)log.advance_log_start_offset(pd.log_start_offset);
    refresh(e);
    if (auto hw = follower_high_watermark(e.state, log.log_end_offset(), pd.high_watermark, false)) set_hw(e, *hw);
  }

  const client::Node leader_;
  const FetcherOptions options_;
  std::shared_ptr<LeaderEndpoint> endpoint_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<TopicPartition, Entry> entries_;
  uint64_t generations_ = 0;
  bool stopping_ = false;
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

ReplicaFetcherManager::ReplicaFetcherManager(FetcherOptions options, std::shared_ptr<LeaderEndpoint> endpoint)
    : options_(std::move(options)), endpoint_(std::move(endpoint)) {
  if (options_.num_fetchers < 1) options_.num_fetchers = 1;
}

ReplicaFetcherManager::~ReplicaFetcherManager() { shutdown(); }

void ReplicaFetcherManager::add(const client::Node& leader, FollowedPartition p) {
  const TopicPartition tp = p.tp;
  remove(tp);
  std::lock_guard lk(mu_);
  if (stopped_) return;
  reap_retired_locked();
  Key key{leader.id, leader.host, leader.port,
          static_cast<int32_t>(std::hash<std::string>{}(tp.topic) * 31 + static_cast<size_t>(tp.partition)) %
              options_.num_fetchers};
  if (key.index < 0) key.index = -key.index;
  auto& t = threads_[key];
  if (!t) t = std::make_unique<Thread>(leader, options_, endpoint_);
  t->add(std::move(p));
  where_[tp] = key;
}

void ReplicaFetcherManager::remove(const TopicPartition& tp) {
  std::lock_guard lk(mu_);
  reap_retired_locked();
  auto it = where_.find(tp);
  if (it == where_.end()) return;
  auto t = threads_.find(it->second);
  if (t != threads_.end() && t->second->remove(tp)) {
    // No partition left: the thread ends once its round is over (it may be
    // waiting for a hung leader); it is joined when finished or at shutdown.
    t->second->request_stop();
    retired_.push_back(std::move(t->second));
    threads_.erase(t);
  }
  where_.erase(it);
}

void ReplicaFetcherManager::reap_retired_locked() {
  std::erase_if(retired_, [](const std::unique_ptr<Thread>& t) { return t->finished(); });  // joins
}

void ReplicaFetcherManager::shutdown() {
  std::map<Key, std::unique_ptr<Thread>> threads;
  std::vector<std::unique_ptr<Thread>> retired;
  {
    std::lock_guard lk(mu_);
    stopped_ = true;
    threads.swap(threads_);
    retired.swap(retired_);
    where_.clear();
  }
  for (auto& [key, t] : threads) t->request_stop();
  threads.clear();
  retired.clear();
}

std::optional<FollowerPartition> ReplicaFetcherManager::state(const TopicPartition& tp) const {
  std::lock_guard lk(mu_);
  auto it = where_.find(tp);
  if (it == where_.end()) return std::nullopt;
  auto t = threads_.find(it->second);
  return t == threads_.end() ? std::nullopt : t->second->state(tp);
}

size_t ReplicaFetcherManager::thread_count() const {
  std::lock_guard lk(mu_);
  return threads_.size();
}

}  // namespace spool::replica
