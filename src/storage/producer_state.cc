#include "storage/producer_state.h"

#include <limits>
#include <string>

#include "protocol/error_code.h"

namespace spool::storage {
namespace {

constexpr int16_t kInvalidProducerEpoch = static_cast<int16_t>(protocol::ErrorCode::kInvalidProducerEpoch);
constexpr int16_t kOutOfOrderSequence = static_cast<int16_t>(protocol::ErrorCode::kOutOfOrderSequenceNumber);
constexpr int16_t kInvalidRecordCode = static_cast<int16_t>(protocol::ErrorCode::kInvalidRecord);
constexpr int16_t kInvalidTxnState = static_cast<int16_t>(protocol::ErrorCode::kInvalidTxnState);
constexpr int16_t kCoordinatorFenced = static_cast<int16_t>(protocol::ErrorCode::kTransactionCoordinatorFenced);

std::string describe(const ProducerBatch& b) {
  return "producer " + std::to_string(b.producer_id) + " epoch " + std::to_string(b.epoch) + " sequence " +
         std::to_string(b.base_sequence) + ".." + std::to_string(b.last_sequence);
}

ProducerBatchMeta meta_of(const ProducerBatch& b) {
  return {b.base_sequence, b.last_sequence, b.first_offset, b.last_offset, b.max_timestamp};
}

}  // namespace

int32_t last_sequence_of(int32_t base_sequence, int32_t last_offset_delta) {
  if (base_sequence < 0) return kNoSequence;
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  if (base_sequence > kMax - last_offset_delta) return last_offset_delta - (kMax - base_sequence) - 1;
  return base_sequence + last_offset_delta;
}

bool in_sequence(int32_t last, int32_t next) {
  return static_cast<int64_t>(next) == static_cast<int64_t>(last) + 1 ||
         (next == 0 && last == std::numeric_limits<int32_t>::max());
}

const ProducerBatchMeta* ProducerEntry::find_batch(int16_t e, int32_t first_seq, int32_t last) const {
  if (e != epoch) return nullptr;
  for (const auto& b : batches)
    if (b.first_seq == first_seq && b.last_seq == last) return &b;
  return nullptr;
}

void ProducerEntry::add_batch(int16_t e, const ProducerBatchMeta& meta) {
  if (e != epoch) {
    epoch = e;
    batches.clear();
  }
  batches.push_back(meta);
  while (batches.size() > static_cast<size_t>(kProducerBatchesRetained)) batches.pop_front();
  last_timestamp = meta.timestamp;
}

ProducerBatch ProducerBatch::from_header(const record::BatchHeader& h, std::optional<int64_t> max_ts) {
  ProducerBatch b;
  b.producer_id = h.producer_id;
  b.epoch = h.producer_epoch;
  b.base_sequence = h.base_sequence;
  b.last_sequence = last_sequence_of(h.base_sequence, h.last_offset_delta);
  b.first_offset = h.base_offset;
  b.last_offset = h.last_offset();
  b.max_timestamp = max_ts ? *max_ts : h.max_timestamp;
  b.transactional = h.is_transactional();
  b.control = h.is_control();
  return b;
}

std::optional<ProducerBatchMeta> ProducerStateManager::find_duplicate(const ProducerBatch& b) const {
  auto it = producers_.find(b.producer_id);
  if (it == producers_.end()) return std::nullopt;
  const ProducerBatchMeta* m = it->second.find_batch(b.epoch, b.base_sequence, b.last_sequence);
  if (!m) return std::nullopt;
  return *m;
}

Status ProducerStateManager::validate_and_stage(const ProducerBatch& b, Staged& staged) const {
  if (b.base_sequence < 0)
    return Status::error("invalid sequence " + std::to_string(b.base_sequence) + " in a batch of producer " +
                             std::to_string(b.producer_id),
                         kInvalidRecordCode);
  auto committed_it = producers_.find(b.producer_id);
  const ProducerEntry* committed = committed_it == producers_.end() ? nullptr : &committed_it->second;
  auto [it, fresh] = staged.updated.try_emplace(b.producer_id);
  ProducerEntry& updated = it->second;
  if (fresh) {
    // Start from the committed entry: later batches of this append see the
    // earlier ones.
    if (committed) updated = *committed;
    else updated.producer_id = b.producer_id;
  }
  // `known` = there is state to check against (Kafka: the current entry has
  // an epoch); a producer without state may start at any sequence.
  const bool known = updated.epoch != kNoProducerEpoch;
  if (known && b.epoch < updated.epoch)
    return Status::error(describe(b) + " is fenced: current epoch " + std::to_string(updated.epoch),
                         kInvalidProducerEpoch);
  if (known && b.epoch != updated.epoch) {
    if (b.base_sequence != 0)
      return Status::error(describe(b) + ": a new epoch must start at sequence 0 (current epoch " +
                               std::to_string(updated.epoch) + ")",
                           kOutOfOrderSequence);
  } else if (known && !in_sequence(updated.last_seq(), b.base_sequence)) {
    return Status::error(describe(b) + ": expected sequence " +
                             std::to_string(last_sequence_of(updated.last_seq(), 1)),
                         kOutOfOrderSequence);
  }
  if (b.transactional) {
    if (updated.current_txn_first_offset < 0) updated.current_txn_first_offset = b.first_offset;
  } else if (updated.current_txn_first_offset >= 0) {
    return Status::error(describe(b) + ": a non-transactional batch while its transaction (from offset " +
                             std::to_string(updated.current_txn_first_offset) + ") is open",
                         kInvalidTxnState);
  }
  updated.add_batch(b.epoch, meta_of(b));
  return Status::ok();
}

Status ProducerStateManager::check_end_txn(const ProducerBatch& b) const {
  const ProducerEntry* e = entry(b.producer_id);
  if (!e) return Status::ok();
  if (e->epoch != kNoProducerEpoch && b.epoch < e->epoch)
    return Status::error("marker of producer " + std::to_string(b.producer_id) + " with epoch " +
                             std::to_string(b.epoch) + " is fenced: current epoch " + std::to_string(e->epoch),
                         kInvalidProducerEpoch);
  if (e->coordinator_epoch > b.coordinator_epoch)
    return Status::error("marker of producer " + std::to_string(b.producer_id) + " from coordinator epoch " +
                             std::to_string(b.coordinator_epoch) + " is fenced: current coordinator epoch " +
                             std::to_string(e->coordinator_epoch),
                         kCoordinatorFenced);
  return Status::ok();
}

std::optional<CompletedTxn> ProducerStateManager::apply_end_txn(const ProducerBatch& b) {
  if (b.last_offset + 1 > map_end_offset_) map_end_offset_ = b.last_offset + 1;
  auto [it, fresh] = producers_.try_emplace(b.producer_id);
  ProducerEntry& e = it->second;
  if (fresh) e.producer_id = b.producer_id;
  if (b.epoch != e.epoch) {  // a bumped epoch (e.g. an abort on timeout) forgets the old batches
    e.epoch = b.epoch;
    e.batches.clear();
  }
  e.coordinator_epoch = b.coordinator_epoch;
  e.last_timestamp = b.max_timestamp;
  if (e.current_txn_first_offset < 0) return std::nullopt;
  CompletedTxn done{b.producer_id, e.current_txn_first_offset, b.last_offset, !b.commit};
  e.current_txn_first_offset = -1;
  unreplicated_.push_back(done);
  return done;
}

std::optional<int64_t> ProducerStateManager::first_unstable_offset() const {
  std::optional<int64_t> first;
  auto consider = [&first](int64_t o) {
    if (o >= 0 && (!first || o < *first)) first = o;
  };
  for (const auto& [pid, e] : producers_) consider(e.current_txn_first_offset);
  for (const auto& t : unreplicated_) consider(t.first_offset);
  return first;
}

int64_t ProducerStateManager::last_stable_offset_after(const CompletedTxn& txn) const {
  int64_t lso = txn.last_offset + 1;
  for (const auto& [pid, e] : producers_)
    if (pid != txn.producer_id && e.current_txn_first_offset >= 0 && e.current_txn_first_offset < lso)
      lso = e.current_txn_first_offset;
  return lso;
}

void ProducerStateManager::on_high_watermark(int64_t hw) {
  std::erase_if(unreplicated_, [hw](const CompletedTxn& t) { return t.last_offset < hw; });
}

size_t ProducerStateManager::ongoing_txn_count() const {
  size_t n = 0;
  for (const auto& [pid, e] : producers_) n += e.current_txn_first_offset >= 0 ? 1 : 0;
  return n;
}

void ProducerStateManager::commit(Staged&& staged, int64_t end_offset) {
  for (auto& [pid, e] : staged.updated) producers_[pid] = std::move(e);
  staged.updated.clear();
  if (end_offset > map_end_offset_) map_end_offset_ = end_offset;
}

std::optional<CompletedTxn> ProducerStateManager::replay(const ProducerBatch& b) {
  if (b.producer_id < 0) return std::nullopt;
  if (b.control) return apply_end_txn(b);
  if (b.last_offset + 1 > map_end_offset_) map_end_offset_ = b.last_offset + 1;
  auto [it, fresh] = producers_.try_emplace(b.producer_id);
  if (fresh) it->second.producer_id = b.producer_id;
  if (b.transactional && it->second.current_txn_first_offset < 0) it->second.current_txn_first_offset = b.first_offset;
  it->second.add_batch(b.epoch, meta_of(b));
  return std::nullopt;
}

int ProducerStateManager::evict_unretained(int64_t log_start) {
  return static_cast<int>(std::erase_if(producers_, [log_start](const auto& kv) {
    return kv.second.current_txn_first_offset < 0 && kv.second.last_data_offset() < log_start;
  }));
}

int ProducerStateManager::remove_expired(int64_t now_ms, int64_t expiration_ms) {
  return static_cast<int>(std::erase_if(producers_, [&](const auto& kv) {
    return kv.second.current_txn_first_offset < 0 && now_ms - kv.second.last_timestamp >= expiration_ms;
  }));
}

void ProducerStateManager::clear(int64_t end_offset) {
  producers_.clear();
  unreplicated_.clear();
  map_end_offset_ = end_offset;
}

const ProducerEntry* ProducerStateManager::entry(int64_t producer_id) const {
  auto it = producers_.find(producer_id);
  return it == producers_.end() ? nullptr : &it->second;
}

std::vector<ProducerEntry> ProducerStateManager::entries() const {
  std::vector<ProducerEntry> out;
  out.reserve(producers_.size());
  for (const auto& [pid, e] : producers_) out.push_back(e);
  return out;
}

void ProducerStateManager::load(std::vector<ProducerEntry> entries, int64_t map_end_offset) {
  producers_.clear();
  unreplicated_.clear();
  for (auto& e : entries) {
    int64_t pid = e.producer_id;
    producers_[pid] = std::move(e);
  }
  map_end_offset_ = map_end_offset;
}

}  // namespace spool::storage
