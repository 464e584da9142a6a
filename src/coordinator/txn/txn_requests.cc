// The client APIs: InitProducerId (with a transactional id),
// AddPartitionsToTxn, AddOffsetsToTxn, EndTxn. Facts from Kafka's
// TransactionCoordinator / TransactionMetadata (KIP-98, KIP-360, KIP-588).
#include <spdlog/spdlog.h>

#include "coordinator/txn/txn_impl.h"

namespace spool::coordinator {
namespace {

bool preparing(TxnState s) { return s == TxnState::kPrepareCommit || s == TxnState::kPrepareAbort; }

// KIP-360: a producer re-initialising with (id, epoch) is fenced unless the
// metadata was just created, the id is the current one (its epoch is checked
// when bumping), or it is the previous id whose epoch was exhausted (a retry
// of a rotation whose answer was lost).
bool valid_expected_producer(const TxnMetadata& md, const std::pair<int64_t, int16_t>& expected) {
  return md.producer_epoch == kNoProducerEpoch || expected.first == md.producer_id ||
         (expected.first == md.last_producer_id && epoch_exhausted(expected.second));
}

}  // namespace

void TxnCoordinator::init_producer_id(const std::string& id, int32_t txn_timeout_ms,
                                      std::optional<std::pair<int64_t, int16_t>> expected,
                                      std::function<void(InitProducerIdResult)> done) {
  Impl& im = *impl_;
  auto fail = [&done](ErrorCode e) { done(InitProducerIdResult{e, -1, -1}); };
  if (id.empty()) return fail(ErrorCode::kInvalidRequest);
  if (txn_timeout_ms <= 0 || txn_timeout_ms > im.opts.transaction_max_timeout_ms)
    return fail(ErrorCode::kInvalidTransactionTimeout);

  std::shared_ptr<TxnEntry> e;
  {
    std::lock_guard lk(im.mu);
    if (ErrorCode st = im.status_locked(id); st != ErrorCode::kNone) return fail(st);
    e = im.find_locked(id);
  }
  if (!e) {
    // A new id: its producer id is allocated outside the lock (the source
    // may persist a block), then the entry is created unless a concurrent
    // request created it first.
    auto pid = im.ids.next_producer_id();
    if (!pid) {
      spdlog::error("transaction {}: no producer id: {}", id, pid.status().message());
      return fail(pid.status().kafka_code() > 0 ? static_cast<ErrorCode>(pid.status().kafka_code())
                                                : ErrorCode::kCoordinatorNotAvailable);
    }
    std::lock_guard lk(im.mu);
    if (ErrorCode st = im.status_locked(id); st != ErrorCode::kNone) return fail(st);
    e = im.find_locked(id);
    if (!e) {
      e = std::make_shared<TxnEntry>();
      e->id = id;
      e->partition = partition_for(id);
      e->md.transactional_id = id;
      e->md.producer_id = *pid;
      e->md.txn_timeout_ms = txn_timeout_ms;
      e->md.txn_last_update_timestamp = im.now();
      im.txns[id] = e;
    }
  }

  enum class Next { kAnswer, kBump, kRotate, kFence } next = Next::kAnswer;
  ErrorCode error = ErrorCode::kNone;
  TxnMetadata target;
  {
    std::lock_guard lk(im.mu);
    if (ErrorCode st = im.status_locked(id); st != ErrorCode::kNone) return fail(st);
    if (!im.is_current_locked(e)) return fail(ErrorCode::kConcurrentTransactions);  // expired meanwhile
    const TxnMetadata& md = e->md;
    if (e->pending) {
      error = ErrorCode::kConcurrentTransactions;
    } else if (expected && !valid_expected_producer(md, *expected)) {
      error = ErrorCode::kProducerFenced;
    } else {
      switch (md.state) {
        case TxnState::kEmpty:
        case TxnState::kCompleteCommit:
        case TxnState::kCompleteAbort:
          if (epoch_exhausted(md.producer_epoch) && (!expected || expected->second == md.producer_epoch)) {
            next = Next::kRotate;
            break;
          }
          next = Next::kBump;
          target = md;
          if (!expected) {
            // A producer without KIP-360 support.
            target.producer_epoch = static_cast<int16_t>(md.producer_epoch + 1);
            target.last_producer_epoch = kNoProducerEpoch;
          } else if (md.producer_epoch == kNoProducerEpoch || expected->second == md.producer_epoch) {
            target.producer_epoch = static_cast<int16_t>(md.producer_epoch + 1);
            target.last_producer_epoch = md.producer_epoch;
          } else if (expected->second == md.last_producer_epoch) {
            // A retry of a bump whose answer was lost: the same epoch again.
          } else {
            next = Next::kAnswer;
            error = ErrorCode::kProducerFenced;
          }
          break;
        case TxnState::kOngoing:
          // Abort the open transaction with a bumped epoch first (fencing
          // the old producer); the client retries and then gets a new epoch.
          next = Next::kFence;
          target = im.fence_abort_target(md);
          break;
        default:  // PrepareX: markers in flight; Dead/PrepareEpochFence: transient
          error = ErrorCode::kConcurrentTransactions;
          break;
      }
    }
    if (next != Next::kAnswer) e->pending = true;
    if (next == Next::kBump) {
      target.state = TxnState::kEmpty;
      target.txn_timeout_ms = txn_timeout_ms;
      target.partitions.clear();
      target.txn_start_timestamp = -1;
      target.txn_last_update_timestamp = im.now();
    }
  }
  switch (next) {
    case Next::kAnswer:
      return fail(error);
    case Next::kFence:
      im.prepare_end(e, std::move(target), [done = std::move(done)](ErrorCode err) {
        done(InitProducerIdResult{err == ErrorCode::kNone ? ErrorCode::kConcurrentTransactions : err, -1, -1});
      });
      return;
    case Next::kRotate: {
      auto pid = im.ids.next_producer_id();
      if (!pid) {
        {
          std::lock_guard lk(im.mu);
          e->pending = false;
        }
        return fail(ErrorCode::kCoordinatorNotAvailable);
      }
      std::lock_guard lk(im.mu);
      const TxnMetadata& md = e->md;
      target = md;
      target.last_producer_id = md.producer_id;
      target.producer_id = *pid;
      target.producer_epoch = 0;
      target.last_producer_epoch = expected ? md.producer_epoch : kNoProducerEpoch;
      target.state = TxnState::kEmpty;
      target.txn_timeout_ms = txn_timeout_ms;
      target.partitions.clear();
      target.txn_start_timestamp = -1;
      target.txn_last_update_timestamp = im.now();
      break;
    }
    case Next::kBump:
      break;
  }
  const int64_t pid = target.producer_id;
  const int16_t epoch = target.producer_epoch;
  im.persist(e, std::move(target), [pid, epoch, done = std::move(done)](ErrorCode err) {
    if (err != ErrorCode::kNone) return done(InitProducerIdResult{err, -1, -1});
    done(InitProducerIdResult{ErrorCode::kNone, pid, epoch});
  });
}

void TxnCoordinator::add_partitions(const std::string& id, int64_t producer_id, int16_t producer_epoch,
                                    std::vector<TxnPartition> partitions, std::function<void(ErrorCode)> done) {
  Impl& im = *impl_;
  if (id.empty()) return done(ErrorCode::kInvalidRequest);
  std::shared_ptr<TxnEntry> e;
  TxnMetadata target;
  {
    std::lock_guard lk(im.mu);
    if (ErrorCode st = im.status_locked(id); st != ErrorCode::kNone) return done(st);
    e = im.find_locked(id);
    if (!e) return done(ErrorCode::kInvalidProducerIdMapping);
    const TxnMetadata& md = e->md;
    if (md.producer_id != producer_id) return done(ErrorCode::kInvalidProducerIdMapping);
    if (md.producer_epoch != producer_epoch) return done(ErrorCode::kProducerFenced);
    if (e->pending || preparing(md.state)) return done(ErrorCode::kConcurrentTransactions);
    if (md.state == TxnState::kDead || md.state == TxnState::kPrepareEpochFence)
      return done(ErrorCode::kConcurrentTransactions);
    if (md.state == TxnState::kOngoing) {
      bool all_in = true;
      for (const auto& tp : partitions) all_in = all_in && md.partitions.count(tp) != 0;
      if (all_in) return done(ErrorCode::kNone);  // nothing new to persist
    }
    target = md;
    if (md.state != TxnState::kOngoing) target.txn_start_timestamp = im.now();
    target.state = TxnState::kOngoing;
    target.partitions.insert(partitions.begin(), partitions.end());
    target.txn_last_update_timestamp = im.now();
    e->pending = true;
  }
  im.persist(e, std::move(target), std::move(done));
}

void TxnCoordinator::add_offsets(const std::string& id, int64_t producer_id, int16_t producer_epoch,
                                 const std::string& group_id, std::function<void(ErrorCode)> done) {
  const int32_t p = impl_->opts.group_partition_for ? impl_->opts.group_partition_for(group_id) : 0;
  add_partitions(id, producer_id, producer_epoch, {TxnPartition{impl_->opts.offsets_topic, p}}, std::move(done));
}

void TxnCoordinator::end_txn(const std::string& id, int64_t producer_id, int16_t producer_epoch, bool commit,
                             std::function<void(ErrorCode)> done) {
  Impl& im = *impl_;
  if (id.empty()) return done(ErrorCode::kInvalidRequest);
  std::shared_ptr<TxnEntry> e;
  TxnMetadata target;
  {
    std::lock_guard lk(im.mu);
    if (ErrorCode st = im.status_locked(id); st != ErrorCode::kNone) return done(st);
    e = im.find_locked(id);
    if (!e) return done(ErrorCode::kInvalidProducerIdMapping);
    const TxnMetadata& md = e->md;
    if (md.producer_id != producer_id) return done(ErrorCode::kInvalidProducerIdMapping);
    // Clients never bump the epoch themselves here: strict equality.
    if (md.producer_epoch != producer_epoch) return done(ErrorCode::kProducerFenced);
    if (e->pending) return done(ErrorCode::kConcurrentTransactions);
    switch (md.state) {
      case TxnState::kOngoing:
        break;
      case TxnState::kCompleteCommit:  // a retry of a finished EndTxn
        return done(commit ? ErrorCode::kNone : ErrorCode::kInvalidTxnState);
      case TxnState::kCompleteAbort:
        return done(commit ? ErrorCode::kInvalidTxnState : ErrorCode::kNone);
      case TxnState::kPrepareCommit:  // markers still being written
        return done(commit ? ErrorCode::kConcurrentTransactions : ErrorCode::kInvalidTxnState);
      case TxnState::kPrepareAbort:
        return done(commit ? ErrorCode::kInvalidTxnState : ErrorCode::kConcurrentTransactions);
      default:  // Empty: nothing to end; Dead/PrepareEpochFence
        return done(ErrorCode::kInvalidTxnState);
    }
    target = md;
    target.state = commit ? TxnState::kPrepareCommit : TxnState::kPrepareAbort;
    target.txn_last_update_timestamp = im.now();
    e->pending = true;
  }
  im.prepare_end(e, std::move(target), std::move(done));
}

}  // namespace spool::coordinator
