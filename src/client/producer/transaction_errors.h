// The transaction manager's protocol facts, shared by its files
// (transaction_manager.cc, transaction_offsets.cc): the request versions of
// a transaction-version-1 client, and how each error answer is treated
// (fatal, retried, the coordinator moved). Internal to client/producer/.
#pragma once

#include <string>

#include "client/request_sender.h"
#include "protocol/error_code.h"
#include "util/status.h"

namespace spool::client::txn {

using protocol::ErrorCode;

// Transaction-version-1 requests: the versions before the broker adds
// partitions on its own (KIP-890 part 2).
constexpr SendOptions kAddPartitionsVersions{0, 3, -1};
constexpr SendOptions kEndTxnVersions{0, 4, -1};
constexpr SendOptions kFindCoordinatorVersions{1, 6, -1};
// v5 is the transaction-version-2 form: the group coordinator adds the offsets
// partition itself, which a version-1 transaction (AddOffsetsToTxn) must not ask.
constexpr SendOptions kTxnOffsetCommitVersions{0, 4, -1};
constexpr SendOptions kInitProducerIdVersions{0, 5, -1};

inline bool is_fatal(ErrorCode c) {
  return c == ErrorCode::kProducerFenced || c == ErrorCode::kInvalidProducerEpoch ||
         c == ErrorCode::kTransactionalIdAuthorizationFailed || c == ErrorCode::kClusterAuthorizationFailed ||
         c == ErrorCode::kUnsupportedVersion || c == ErrorCode::kInvalidTxnState ||
         c == ErrorCode::kTransactionCoordinatorFenced || c == ErrorCode::kInvalidProducerIdMapping;
}

// Answers after which the same request is tried again (after a lookup when
// the coordinator moved).
inline bool is_retry(ErrorCode c) {
  return c == ErrorCode::kCoordinatorLoadInProgress || c == ErrorCode::kConcurrentTransactions ||
         c == ErrorCode::kNotCoordinator || c == ErrorCode::kCoordinatorNotAvailable ||
         c == ErrorCode::kRequestTimedOut || c == ErrorCode::kNetworkException ||
         c == ErrorCode::kUnknownTopicOrPartition;
}

inline bool coordinator_moved(ErrorCode c) {
  return c == ErrorCode::kNotCoordinator || c == ErrorCode::kCoordinatorNotAvailable ||
         c == ErrorCode::kNetworkException || c == ErrorCode::kRequestTimedOut;
}

inline Status error_status(const std::string& what, ErrorCode c) {
  return Status::error(what + ": " + std::string(protocol::error_name(c)), protocol::to_int(c));
}

inline ErrorCode code_of(const Status& s) {
  return s.kafka_code() >= 0 ? static_cast<ErrorCode>(s.kafka_code()) : ErrorCode::kNetworkException;
}

}  // namespace spool::client::txn
