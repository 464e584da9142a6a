// Transaction metadata (one per transactional id) and its record format in
// __transaction_state (docs/transaction-state-format.md).
//
// TxnMetadata is a plain value: the coordinator keeps the committed copy and
// builds the next one before persisting it, so a failed write leaves the
// committed state untouched. The record codec validates everything it reads
// (bad bytes -> Status naming the field, never a crash).
// Threading: pure values and functions; no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "coordinator/txn/txn_ports.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::coordinator {

// Kafka's TransactionState ids (they are persisted as int8).
enum class TxnState : int8_t {
  kEmpty = 0,
  kOngoing = 1,
  kPrepareCommit = 2,
  kPrepareAbort = 3,
  kCompleteCommit = 4,
  kCompleteAbort = 5,
  kDead = 6,
  kPrepareEpochFence = 7,
};

// "Empty", "Ongoing", ... (Kafka's names, used by Describe/ListTransactions).
const char* txn_state_name(TxnState s);
// Case-sensitive inverse of txn_state_name; nullopt for unknown names.
std::optional<TxnState> txn_state_from_name(std::string_view name);

inline constexpr int16_t kNoProducerEpoch = -1;
inline constexpr int64_t kNoProducerId = -1;
// Kafka's TransactionMetadata.isEpochExhausted: the last epoch is kept for
// fencing, so a producer can be given at most Short.MaxValue - 1.
inline constexpr int16_t kMaxUsableEpoch = INT16_MAX - 1;
inline bool epoch_exhausted(int16_t epoch) { return epoch >= kMaxUsableEpoch; }

struct TxnMetadata {
  std::string transactional_id;
  int64_t producer_id = kNoProducerId;
  int64_t last_producer_id = kNoProducerId;
  int16_t producer_epoch = kNoProducerEpoch;
  int16_t last_producer_epoch = kNoProducerEpoch;
  int32_t txn_timeout_ms = 0;
  TxnState state = TxnState::kEmpty;
  std::set<TxnPartition> partitions;
  int64_t txn_start_timestamp = -1;  // -1: no transaction started
  int64_t txn_last_update_timestamp = -1;

  bool operator==(const TxnMetadata&) const = default;
};

inline constexpr int16_t kTxnKeyVersion = 0;
inline constexpr int16_t kTxnValueVersion = 0;

Bytes encode_txn_key(const std::string& transactional_id);
Bytes encode_txn_value(const TxnMetadata& md);
// The transactional id of a key record.
Result<std::string> decode_txn_key(ByteSpan key);
// The value of a record whose key decoded to transactional_id.
Result<TxnMetadata> decode_txn_value(const std::string& transactional_id, ByteSpan value);

}  // namespace spool::coordinator
