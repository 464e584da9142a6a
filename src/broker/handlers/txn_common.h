// Helpers shared by the transaction API handlers (add_partitions_to_txn.cc,
// add_offsets_to_txn.cc, end_txn.cc, init_producer_id.cc,
// describe_transactions.cc, list_transactions.cc). Pure functions.
#pragma once

#include <cstdint>

#include "protocol/error_code.h"

namespace spool::broker {

// KIP-588: PRODUCER_FENCED is new; request versions that predate it get
// INVALID_PRODUCER_EPOCH, which those clients handle the same way. The
// first version that understands it: InitProducerId 4, AddPartitionsToTxn /
// AddOffsetsToTxn / EndTxn 2 (Kafka's KafkaApis does the same mapping).
inline protocol::ErrorCode txn_error(protocol::ErrorCode e, int16_t version, int16_t first_fenced_version) {
  if (e == protocol::ErrorCode::kProducerFenced && version < first_fenced_version)
    e = protocol::ErrorCode::kInvalidProducerEpoch;
  return e;
}

}  // namespace spool::broker
