// RefusedBatches: which out-of-order batches a refused batch explains, and
// its bound.
#include "broker/refused_batches.h"

#include <gtest/gtest.h>

#include "record/batch_builder.h"

namespace spool::broker {
namespace {

Bytes batch(int64_t pid, int16_t epoch, int32_t seq, int records = 1) {
  record::BatchOptions bo;
  bo.producer_id = pid;
  bo.producer_epoch = epoch;
  bo.base_sequence = seq;
  std::vector<record::BuildRecord> rs(static_cast<size_t>(records));
  for (auto& r : rs) r.value = Bytes{'v'};
  auto b = record::build_batch(bo, std::span<const record::BuildRecord>(rs.data(), rs.size()));
  EXPECT_TRUE(b);
  return *b;
}

TEST(RefusedBatches, ExplainsOnlyTheGapAtTheLogsEnd) {
  RefusedBatches r;
  int32_t seq = -1;
  r.note(batch(7, 0, 5, 2));  // sequences 5 and 6 refused; the log ends at 4
  EXPECT_TRUE(r.explains_gap(batch(7, 0, 7), 4, seq));
  EXPECT_EQ(seq, 5);
  EXPECT_FALSE(r.explains_gap(batch(7, 0, 7), 6, seq));  // since written: a real gap
  EXPECT_FALSE(r.explains_gap(batch(7, 0, 7), 2, seq));  // the log ends before it
  EXPECT_FALSE(r.explains_gap(batch(7, 1, 7), 4, seq));  // another epoch
  EXPECT_FALSE(r.explains_gap(batch(8, 0, 7), 4, seq));  // another producer
  EXPECT_FALSE(r.explains_gap(batch(7, 0, 5), 4, seq));  // the refused batch itself
  // A new epoch's first batch (sequence 0) with nothing in the log yet.
  r.note(batch(7, 1, 0));
  EXPECT_TRUE(r.explains_gap(batch(7, 1, 3), storage::kNoSequence, seq));
  EXPECT_EQ(seq, 0);
  // Sequences wrap past INT32_MAX to 0.
  r.note(batch(9, 0, 0));
  EXPECT_TRUE(r.explains_gap(batch(9, 0, 4), INT32_MAX, seq));
}

TEST(RefusedBatches, IgnoresPlainBatchesAndKeepsABoundedNumberOfProducers) {
  RefusedBatches r;
  int32_t seq = -1;
  r.note(batch(-1, -1, -1));
  EXPECT_FALSE(r.explains_gap(batch(-1, -1, -1), storage::kNoSequence, seq));
  for (int64_t pid = 0; pid <= static_cast<int64_t>(RefusedBatches::kMaxProducers); ++pid) r.note(batch(pid, 0, 1));
  EXPECT_FALSE(r.explains_gap(batch(0, 0, 2), 0, seq));  // the oldest was forgotten
  EXPECT_TRUE(r.explains_gap(batch(1, 0, 2), 0, seq));
  EXPECT_TRUE(r.explains_gap(batch(RefusedBatches::kMaxProducers, 0, 2), 0, seq));
}

}  // namespace
}  // namespace spool::broker
