#include "broker/refused_batches.h"

#include <algorithm>

#include "record/batch_header.h"

namespace spool::broker {

void RefusedBatches::note(ByteSpan batches) {
  auto h = record::read_header(batches);
  if (!h || h->producer_id < 0 || h->base_sequence < 0) return;
  std::lock_guard lock(mu_);
  std::erase_if(refusals_, [&](const Refusal& r) { return r.producer_id == h->producer_id; });
  if (refusals_.size() >= kMaxProducers) refusals_.pop_front();
  refusals_.push_back({h->producer_id, h->producer_epoch, h->base_sequence});
}

bool RefusedBatches::explains_gap(ByteSpan batches, int32_t last_seq, int32_t& refused_seq) const {
  auto h = record::read_header(batches);
  if (!h || h->producer_id < 0) return false;
  std::lock_guard lock(mu_);
  for (const Refusal& r : refusals_) {
    if (r.producer_id != h->producer_id) continue;
    // The refused batch is the next one the log expects (nothing of it was
    // written since), and this batch comes after it.
    const bool next_expected = last_seq == storage::kNoSequence ? r.first_seq == 0
                                                                : storage::in_sequence(last_seq, r.first_seq);
    if (r.epoch != h->producer_epoch || !next_expected || r.first_seq == h->base_sequence) return false;
    refused_seq = r.first_seq;
    return true;
  }
  return false;
}

}  // namespace spool::broker
