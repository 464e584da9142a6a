// parse_fetched_records: record conversion, the fetch offset inside a
// batch, a cut batch at the end, and read_committed's skipping of aborted
// transactions with the answer's aborted list and the ABORT markers.
#include <gtest/gtest.h>

#include "client/consumer/fetched_records.h"
#include "consumer_test_support.h"
#include "record/control_record.h"

namespace spool::client {
namespace {

using testing::batch;

Bytes txn_batch(int64_t base, int count, int64_t pid) {
  record::BatchOptions o;
  o.producer_id = pid;
  o.producer_epoch = 0;
  o.base_sequence = 0;
  o.transactional = true;
  return batch(base, count, o);
}

Bytes marker(int64_t offset, int64_t pid, record::ControlType type) {
  record::ControlBatchOptions o;
  o.producer_id = pid;
  o.producer_epoch = 0;
  o.base_offset = offset;
  o.timestamp = 5;
  auto b = record::build_control_batch(o, record::ControlMarker{type, 0});
  EXPECT_TRUE(b.is_ok());
  return *b;
}

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::vector<int64_t> offsets(const FetchedRecords& f) {
  std::vector<int64_t> out;
  for (const auto& r : f.records) out.push_back(r.offset);
  return out;
}

std::string value(const ConsumerRecord& r) { return std::string(r.value->begin(), r.value->end()); }

TEST(FetchedRecords, ConvertsRecordsAndStartsAtTheFetchOffset) {
  const Bytes data = concat({batch(0, 3, {}, 4), batch(3, 2, {}, 5)});
  auto f = parse_fetched_records("t", 2, data, 1, IsolationLevel::kReadUncommitted, {});
  ASSERT_TRUE(f.error.is_ok());
  EXPECT_EQ(offsets(f), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(f.next_fetch_offset, 5);
  EXPECT_EQ(f.last_epoch, 5);
  const ConsumerRecord& r = f.records[0];
  EXPECT_EQ(r.topic, "t");
  EXPECT_EQ(r.partition, 2);
  EXPECT_EQ(value(r), "v1");
  EXPECT_EQ(std::string(r.key->begin(), r.key->end()), "k");
  EXPECT_EQ(r.timestamp, 1001);
  EXPECT_FALSE(r.log_append_time);
  EXPECT_EQ(r.leader_epoch, 4);
}

TEST(FetchedRecords, IgnoresACutBatchAtTheEnd) {
  Bytes second = batch(3, 2);
  second.resize(second.size() - 5);
  const Bytes data = concat({batch(0, 3), second});
  auto f = parse_fetched_records("t", 0, data, 0, IsolationLevel::kReadUncommitted, {});
  EXPECT_TRUE(f.error.is_ok());
  EXPECT_EQ(offsets(f), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(f.next_fetch_offset, 3);
}

TEST(FetchedRecords, CorruptBatchIsAnError) {
  Bytes data = batch(0, 3);
  data[data.size() - 1] ^= 0xff;  // the CRC no longer matches
  auto f = parse_fetched_records("t", 0, data, 0, IsolationLevel::kReadUncommitted, {});
  EXPECT_FALSE(f.error.is_ok());
  EXPECT_TRUE(f.records.empty());
}

// pid 1 aborts offsets 0-1 (marker at 4); pid 2 commits 2-3 (marker at 5);
// 6 is not transactional.
Bytes mixed_log() {
  return concat({txn_batch(0, 2, 1), txn_batch(2, 2, 2), marker(4, 1, record::ControlType::kAbort),
                 marker(5, 2, record::ControlType::kCommit), batch(6, 1)});
}

TEST(FetchedRecords, ReadCommittedSkipsAbortedTransactions) {
  auto f = parse_fetched_records("t", 0, mixed_log(), 0, IsolationLevel::kReadCommitted, {{1, 0}});
  ASSERT_TRUE(f.error.is_ok()) << f.error.message();
  EXPECT_EQ(offsets(f), (std::vector<int64_t>{2, 3, 6}));
  EXPECT_EQ(f.next_fetch_offset, 7);
}

TEST(FetchedRecords, ReadUncommittedReturnsEverythingButMarkers) {
  auto f = parse_fetched_records("t", 0, mixed_log(), 0, IsolationLevel::kReadUncommitted, {{1, 0}});
  EXPECT_EQ(offsets(f), (std::vector<int64_t>{0, 1, 2, 3, 6}));
  EXPECT_EQ(f.next_fetch_offset, 7);
}

TEST(FetchedRecords, AbortMarkerEndsTheAbortedStateOfItsProducer) {
  // pid 1 aborts 0-1, then commits a later transaction at 3-4 (marker 5).
  const Bytes data = concat({txn_batch(0, 2, 1), marker(2, 1, record::ControlType::kAbort), txn_batch(3, 2, 1),
                             marker(5, 1, record::ControlType::kCommit)});
  auto f = parse_fetched_records("t", 0, data, 0, IsolationLevel::kReadCommitted, {{1, 0}});
  EXPECT_EQ(offsets(f), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(f.next_fetch_offset, 6);
}

TEST(FetchedRecords, OnlyAbortedBatchesAdvanceTheFetchOffset) {
  const Bytes data = concat({txn_batch(0, 2, 1), marker(2, 1, record::ControlType::kAbort)});
  auto f = parse_fetched_records("t", 0, data, 0, IsolationLevel::kReadCommitted, {{1, 0}});
  EXPECT_TRUE(f.records.empty());
  EXPECT_EQ(f.next_fetch_offset, 3);
}

}  // namespace
}  // namespace spool::client
