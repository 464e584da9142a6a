// TxnCoordinator: partitions and loading, describe/list/verify, the background
// tasks (timeouts, expiration, marker retries) and lifecycle. The client APIs
// live in txn_requests.cc, the write/marker flow in txn_markers_flow.cc.
#include "coordinator/txn/txn_coordinator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <regex>

#include "coordinator/txn/txn_impl.h"

namespace spool::coordinator {

TxnCoordinator::Impl::Impl(OffsetsLog& l, TxnMarkerSender& m, ProducerIdSource& i, TxnCoordinatorOptions o)
    : log(l), marker_sender(m), ids(i), opts(std::move(o)), clock(clock_or_system(opts.clock)) {
  last_abort_check = last_expire_check = now();
}

int64_t TxnCoordinator::Impl::now() const { return clock->wall_ms(); }

ErrorCode TxnCoordinator::Impl::status_locked(const std::string& id) const {
  const int32_t p = partition_for(id);
  if (shutting_down) return ErrorCode::kNotCoordinator;
  if (loading.count(p)) return ErrorCode::kCoordinatorLoadInProgress;
  if (!owned.count(p)) return ErrorCode::kNotCoordinator;
  return ErrorCode::kNone;
}

std::shared_ptr<TxnEntry> TxnCoordinator::Impl::find_locked(const std::string& id) const {
  auto it = txns.find(id);
  return it == txns.end() ? nullptr : it->second;
}

bool TxnCoordinator::Impl::is_current_locked(const std::shared_ptr<TxnEntry>& e) const {
  auto it = txns.find(e->id);
  return it != txns.end() && it->second == e && owned.count(e->partition) != 0;
}

TxnCoordinator::TxnCoordinator(OffsetsLog& log, TxnMarkerSender& markers, ProducerIdSource& ids,
                               TxnCoordinatorOptions options)
    : impl_(std::make_shared<Impl>(log, markers, ids, std::move(options))) {
  if (!impl_->opts.start_background) return;
  impl_->background = std::thread([this] {
    Impl& im = *impl_;
    std::unique_lock lk(im.mu);
    while (!im.shutting_down) {
      // Wake for the earliest of: a retry, the abort check, the expiry check
      // (capped so a clock jump is noticed within a second).
      int64_t wait = 1000;
      const int64_t now = im.now();
      wait = std::min(wait, im.last_abort_check + im.opts.abort_timed_out_interval_ms - now);
      wait = std::min(wait, im.last_expire_check + im.opts.remove_expired_interval_ms - now);
      for (const auto& j : im.retries) wait = std::min(wait, j.due_ms - now);
      if (wait > 0) im.cv.wait_for(lk, std::chrono::milliseconds(wait));
      if (im.shutting_down) break;
      lk.unlock();
      run_periodic_tasks(false);
      lk.lock();
    }
  });
}

TxnCoordinator::~TxnCoordinator() { shutdown(); }

int32_t TxnCoordinator::Impl::partition_for(const std::string& id) const {
  const int32_t n = log.partition_count();
  if (n <= 0) return 0;
  return (java_string_hash(id) & 0x7fffffff) % n;  // Kafka's Utils.abs
}

int32_t TxnCoordinator::partition_for(const std::string& id) const { return impl_->partition_for(id); }

Status TxnCoordinator::load_partition(int32_t partition, int32_t coordinator_epoch) {
  Impl& im = *impl_;
  if (partition < 0 || partition >= im.log.partition_count())
    return Status::error("load_partition: no partition " + std::to_string(partition));
  {
    std::lock_guard lk(im.mu);
    if (im.shutting_down) return Status::error("transaction coordinator is shut down");
    if (im.loading.count(partition)) return Status::error("partition is already loading");
    if (im.owned.count(partition)) return Status::ok();
    im.loading.insert(partition);
  }
  std::map<std::string, std::optional<TxnMetadata>> latest;  // nullopt: tombstone
  Status decode_error;
  Status s = im.log.read_all(partition, [&](const LogRecord& r) {
    if (!decode_error.is_ok()) return;
    auto id = decode_txn_key(ByteSpan(r.key));
    if (!id) {
      decode_error = id.status();
      return;
    }
    if (!r.value) {
      latest[*id] = std::nullopt;
      return;
    }
    auto md = decode_txn_value(*id, ByteSpan(*r.value));
    if (!md) {
      decode_error = Status::error("transaction " + *id + ": " + md.status().message());
      return;
    }
    latest[*id] = std::move(*md);
  });
  if (s.is_ok()) s = decode_error;
  if (!s.is_ok()) {
    std::lock_guard lk(im.mu);
    im.loading.erase(partition);
    spdlog::error("transaction coordinator: loading partition {} failed: {}", partition, s.message());
    return s;
  }
  std::vector<std::shared_ptr<TxnEntry>> to_finish;
  size_t count = 0;
  {
    std::lock_guard lk(im.mu);
    im.loading.erase(partition);
    if (im.shutting_down) return Status::error("transaction coordinator shut down while loading");
    for (auto& [id, md] : latest) {
      if (!md || md->state == TxnState::kDead) continue;
      auto e = std::make_shared<TxnEntry>();
      e->id = id;
      e->partition = partition;
      e->md = std::move(*md);
      // Only settled states are persisted besides these; a PrepareEpochFence
      // never reaches the log, but treat one as the abort it was heading to.
      if (e->md.state == TxnState::kPrepareEpochFence) e->md.state = TxnState::kPrepareAbort;
      if (e->md.state == TxnState::kPrepareCommit || e->md.state == TxnState::kPrepareAbort) to_finish.push_back(e);
      im.txns[id] = std::move(e);
      ++count;
    }
    im.owned[partition] = coordinator_epoch;
  }
  spdlog::info("transaction coordinator: loaded partition {} ({} transactional ids, {} to complete)", partition,
               count, to_finish.size());
  for (const auto& e : to_finish) im.start_markers(e);
  return Status::ok();
}

void TxnCoordinator::unload_partition(int32_t partition) {
  Impl& im = *impl_;
  std::lock_guard lk(im.mu);
  im.owned.erase(partition);
  for (auto it = im.txns.begin(); it != im.txns.end();) {
    it = it->second->partition == partition ? im.txns.erase(it) : std::next(it);
  }
  std::erase_if(im.retries, [partition](const MarkerJob& j) { return j.entry->partition == partition; });
}

bool TxnCoordinator::is_loading(int32_t partition) const {
  std::lock_guard lk(impl_->mu);
  return impl_->loading.count(partition) != 0;
}

ErrorCode TxnCoordinator::coordinator_status(const std::string& id) const {
  std::lock_guard lk(impl_->mu);
  return impl_->status_locked(id);
}

std::vector<DescribedTxn> TxnCoordinator::describe(const std::vector<std::string>& ids) {
  Impl& im = *impl_;
  std::vector<DescribedTxn> out;
  std::lock_guard lk(im.mu);
  for (const auto& id : ids) {
    DescribedTxn d;
    d.transactional_id = id;
    if (id.empty()) {
      d.error = ErrorCode::kInvalidRequest;  // Kafka's handleDescribeTransactions
    } else if (ErrorCode st = im.status_locked(id); st != ErrorCode::kNone) {
      d.error = st;
    } else if (auto e = im.find_locked(id); !e || e->md.state == TxnState::kDead) {
      d.error = ErrorCode::kTransactionalIdNotFound;
    } else {
      const TxnMetadata& md = e->md;
      d.state = txn_state_name(md.state);
      d.txn_timeout_ms = md.txn_timeout_ms;
      d.txn_start_timestamp = md.txn_start_timestamp;
      d.producer_id = md.producer_id;
      d.producer_epoch = md.producer_epoch;
      d.partitions.assign(md.partitions.begin(), md.partitions.end());
    }
    out.push_back(std::move(d));
  }
  return out;
}

ListTxnsResult TxnCoordinator::list(const std::vector<std::string>& state_filters,
                                    const std::vector<int64_t>& producer_id_filters) {
  ListTxnsFilter f;
  f.states = state_filters;
  f.producer_ids = producer_id_filters;
  return list(f);
}

namespace {

// Kafka compiles the pattern with RE2/J and needs a whole-id match. Spool
// uses std::regex (ECMAScript), which agrees on the common syntax; the
// constructs RE2 refuses (backreferences, lookaround) are refused here too.
// RE2-only syntax ((?i), (?P<name>...), \p{L}) does not compile here.
std::optional<std::regex> compile_id_pattern(const std::string& pattern) {
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      if (pattern[i + 1] >= '1' && pattern[i + 1] <= '9') return std::nullopt;
      ++i;  // an escaped character is literal
    } else if (pattern[i] == '(' && pattern[i + 1] == '?' && i + 2 < pattern.size() &&
               (pattern[i + 2] == '=' || pattern[i + 2] == '!')) {
      return std::nullopt;
    }
  }
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return std::nullopt;
  }
}

bool whole_match(const std::regex& re, const std::string& id) {
  try {
    return std::regex_match(id, re);
  } catch (const std::regex_error&) {  // too complex for this id: no match
    return false;
  }
}

}  // namespace

ListTxnsResult TxnCoordinator::list(const ListTxnsFilter& f) {
  Impl& im = *impl_;
  ListTxnsResult r;
  {
    // Kafka's order: not active, then loading, then the filters.
    std::lock_guard lk(im.mu);
    if (im.shutting_down) {
      r.error = ErrorCode::kCoordinatorNotAvailable;
      return r;
    }
    if (!im.loading.empty()) {
      r.error = ErrorCode::kCoordinatorLoadInProgress;
      return r;
    }
  }
  std::set<TxnState> states;
  for (const auto& name : f.states) {
    if (auto s = txn_state_from_name(name)) {
      states.insert(*s);
    } else {
      r.unknown_state_filters.push_back(name);
    }
  }
  std::optional<std::regex> re;
  if (f.id_pattern && !f.id_pattern->empty()) {
    re = compile_id_pattern(*f.id_pattern);
    if (!re) {
      r.error = ErrorCode::kInvalidRegularExpression;
      r.unknown_state_filters.clear();
      return r;
    }
  }
  std::lock_guard lk(im.mu);
  const int64_t now = im.now();
  for (const auto& [id, e] : im.txns) {
    const TxnMetadata& md = e->md;
    if (md.state == TxnState::kDead) continue;
    if (!f.producer_ids.empty() &&
        std::find(f.producer_ids.begin(), f.producer_ids.end(), md.producer_id) == f.producer_ids.end())
      continue;
    if (!f.states.empty() && !states.count(md.state)) continue;
    // As Kafka: a transaction that never started (start time -1) counts as
    // running since the epoch.
    if (f.min_duration_ms >= 0 && now - md.txn_start_timestamp <= f.min_duration_ms) continue;
    if (re && !whole_match(*re, id)) continue;
    r.transactions.push_back(ListedTxn{id, md.producer_id, txn_state_name(md.state)});
  }
  std::sort(r.transactions.begin(), r.transactions.end(),
            [](const ListedTxn& a, const ListedTxn& b) { return a.transactional_id < b.transactional_id; });
  return r;
}

std::vector<VerifiedPartition> TxnCoordinator::verify_partitions(const std::string& id, int64_t producer_id,
                                                                 int16_t producer_epoch,
                                                                 const std::vector<TxnPartition>& partitions) {
  Impl& im = *impl_;
  std::vector<VerifiedPartition> out;
  auto all = [&](ErrorCode e) {
    for (const auto& tp : partitions) out.push_back(VerifiedPartition{tp, e});
    return out;
  };
  if (id.empty()) return all(ErrorCode::kInvalidRequest);
  std::lock_guard lk(im.mu);
  if (ErrorCode st = im.status_locked(id); st != ErrorCode::kNone) return all(st);
  auto e = im.find_locked(id);
  if (!e) return all(ErrorCode::kInvalidProducerIdMapping);
  const TxnMetadata& md = e->md;
  if (md.producer_id != producer_id) return all(ErrorCode::kInvalidProducerIdMapping);
  if (md.producer_epoch != producer_epoch) return all(ErrorCode::kProducerFenced);
  if (md.state == TxnState::kPrepareCommit || md.state == TxnState::kPrepareAbort)
    return all(ErrorCode::kConcurrentTransactions);
  for (const auto& tp : partitions) {
    out.push_back(VerifiedPartition{tp, md.partitions.count(tp) ? ErrorCode::kNone : ErrorCode::kTransactionAbortable});
  }
  return out;
}

int TxnCoordinator::abort_timed_out_transactions() {
  Impl& im = *impl_;
  std::vector<std::pair<std::shared_ptr<TxnEntry>, TxnMetadata>> victims;
  {
    std::lock_guard lk(im.mu);
    if (im.shutting_down) return 0;
    const int64_t now = im.now();
    for (const auto& [id, e] : im.txns) {
      const TxnMetadata& md = e->md;
      if (e->pending || md.state != TxnState::kOngoing || !im.owned.count(e->partition)) continue;
      if (md.txn_start_timestamp + md.txn_timeout_ms >= now) continue;
      e->pending = true;
      victims.emplace_back(e, im.fence_abort_target(md));
    }
  }
  for (auto& [e, target] : victims) {
    spdlog::info("transaction {}: timed out after {} ms; aborting with producer epoch {}", e->id,
                 target.txn_timeout_ms, target.producer_epoch);
    im.prepare_end(e, std::move(target), [id = e->id](ErrorCode err) {
      if (err != ErrorCode::kNone)
        spdlog::warn("transaction {}: timeout abort failed ({}); retried at the next check", id, static_cast<int>(err));
    });
  }
  return static_cast<int>(victims.size());
}

int TxnCoordinator::expire_transactional_ids() {
  Impl& im = *impl_;
  std::vector<std::pair<std::shared_ptr<TxnEntry>, TxnMetadata>> victims;
  {
    std::lock_guard lk(im.mu);
    if (im.shutting_down) return 0;
    const int64_t now = im.now();
    for (const auto& [id, e] : im.txns) {
      const TxnMetadata& md = e->md;
      const bool settled = md.state == TxnState::kEmpty || md.state == TxnState::kCompleteCommit ||
                           md.state == TxnState::kCompleteAbort;
      if (e->pending || !settled || !im.owned.count(e->partition)) continue;
      if (md.txn_last_update_timestamp > now - im.opts.transactional_id_expiration_ms) continue;
      e->pending = true;
      TxnMetadata t = md;
      t.state = TxnState::kDead;
      t.txn_last_update_timestamp = now;
      victims.emplace_back(e, std::move(t));
    }
  }
  for (auto& [e, target] : victims) {
    spdlog::info("transactional id {} expired", e->id);
    im.persist(e, std::move(target), [](ErrorCode) {});
  }
  return static_cast<int>(victims.size());
}

void TxnCoordinator::run_periodic_tasks(bool force) {
  Impl& im = *impl_;
  bool abort_due = false, expire_due = false;
  {
    std::lock_guard lk(im.mu);
    const int64_t now = im.now();
    if (force || now - im.last_abort_check >= im.opts.abort_timed_out_interval_ms) {
      abort_due = true;
      im.last_abort_check = now;
    }
    if (force || now - im.last_expire_check >= im.opts.remove_expired_interval_ms) {
      expire_due = true;
      im.last_expire_check = now;
    }
  }
  if (abort_due) abort_timed_out_transactions();
  if (expire_due) expire_transactional_ids();
  retry_due_markers();
}

std::optional<TxnMetadata> TxnCoordinator::metadata(const std::string& id) const {
  std::lock_guard lk(impl_->mu);
  auto e = impl_->find_locked(id);
  if (!e) return std::nullopt;
  return e->md;
}

void TxnCoordinator::shutdown() {
  if (!impl_) return;
  Impl& im = *impl_;
  {
    std::lock_guard lk(im.mu);
    if (im.shutting_down) return;
    im.shutting_down = true;
    im.retries.clear();
  }
  im.cv.notify_all();
  if (im.background.joinable()) im.background.join();
  // Writes and marker rounds still in flight keep Impl alive through their
  // callbacks; they find shutting_down set and stop there.
  std::lock_guard lk(im.mu);
  im.txns.clear();
  im.owned.clear();
}

}  // namespace spool::coordinator
