// RefusedBatches: per partition, the first sequence of the last idempotent
// batch each producer had refused *before* the append with a retriable error
// (NOT_ENOUGH_REPLICAS: nothing was written), so that the gap it leaves is not
// reported as OUT_OF_ORDER_SEQUENCE_NUMBER.
//
// Why: a producer pipelines several requests. When request k is refused with
// NOT_ENOUGH_REPLICAS and the ISR grows back before request k+1 arrives,
// k+1's first sequence is one batch ahead of the log: Kafka answers
// OUT_OF_ORDER_SEQUENCE_NUMBER. The Java producer retries that; librdkafka
// treats it as fatal once the batch has been retried before ("sequence
// desynchronization"), and the application's producer dies. Spool answers
// k+1 with the same retriable error instead (explains_gap), so both are
// retried in order. Nothing is written either way; a real gap (state lost,
// a batch never sent) is still OUT_OF_ORDER_SEQUENCE_NUMBER.
//
// Bounded: kMaxProducers entries per partition, the oldest forgotten first.
// Thread-safe (one mutex, taken only on a refusal or an out-of-order answer).
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>

#include "storage/producer_state.h"
#include "util/bytes.h"

namespace spool::broker {

class RefusedBatches {
 public:
  static constexpr size_t kMaxProducers = 64;

  // `batches` (one v2 batch, as produced) was refused before the append.
  // Non-idempotent batches are ignored.
  void note(ByteSpan batches);
  // Whether the out-of-order `batches` start past a refused batch of the
  // same producer and epoch that begins exactly where the log's sequence
  // for it ends (`last_seq`: the producer's last appended sequence, or
  // storage::kNoSequence when the log has none). Sets `refused_seq`.
  bool explains_gap(ByteSpan batches, int32_t last_seq, int32_t& refused_seq) const;

 private:
  struct Refusal {
    int64_t producer_id;
    int16_t epoch;
    int32_t first_seq;
  };
  mutable std::mutex mu_;
  std::deque<Refusal> refusals_;  // newest last, one per producer
};

}  // namespace spool::broker
