// Golden byte strings for the transaction APIs at Kafka 4.4's newest
// versions (issue 12): InitProducerId v5-6, AddPartitionsToTxn v3-5 (the
// batched broker form of v4+), AddOffsetsToTxn v3-4, EndTxn v3-5,
// TxnOffsetCommit v4-6 (topic ids in v6), WriteTxnMarkers v2 and
// ListTransactions v1-2. Written field by field from the Kafka 4.4 message
// specs; check_golden also decodes them back and refuses every truncation.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/add_offsets_to_txn_request.h"
#include "protocol/add_offsets_to_txn_response.h"
#include "protocol/add_partitions_to_txn_request.h"
#include "protocol/add_partitions_to_txn_response.h"
#include "protocol/end_txn_request.h"
#include "protocol/end_txn_response.h"
#include "protocol/init_producer_id_request.h"
#include "protocol/init_producer_id_response.h"
#include "protocol/list_transactions_request.h"
#include "protocol/list_transactions_response.h"
#include "protocol/txn_offset_commit_request.h"
#include "protocol/txn_offset_commit_response.h"
#include "protocol/write_txn_markers_request.h"
#include "protocol/write_txn_markers_response.h"

namespace spool::protocol {
namespace {

using testing::check_golden;

TEST(GoldenTxnV4, InitProducerIdV5V6) {
  InitProducerIdRequest m;
  m.transactional_id = "x";
  m.transaction_timeout_ms = 60000;
  // v5: as v4 (flexible, KIP-360 pair).
  check_golden(m, 5, "02 78 | 0000ea60 | ffffffffffffffff | ffff | 00");
  m.enable2_pc = true;
  check_golden(m, 6, "02 78 | 0000ea60 | ffffffffffffffff | ffff | 01 | 00 | 00");
  m.transactional_id = std::nullopt;
  m.enable2_pc = false;
  m.keep_prepared_txn = true;
  check_golden(m, 6, "00 | 0000ea60 | ffffffffffffffff | ffff | 00 | 01 | 00");

  InitProducerIdResponse r;
  r.producer_id = 1000;
  r.producer_epoch = 1;
  check_golden(r, 5, "00000000 | 0000 | 00000000000003e8 | 0001 | 00");
  check_golden(r, 6, "00000000 | 0000 | 00000000000003e8 | 0001 | ffffffffffffffff | ffff | 00");
  EXPECT_EQ(InitProducerIdRequest::kMaxVersion, 6);
}

TEST(GoldenTxnV4, AddPartitionsToTxnRequest) {
  AddPartitionsToTxnRequest m;
  m.v3_and_below_transactional_id = "x";
  m.v3_and_below_producer_id = 1000;
  m.v3_and_below_producer_epoch = 1;
  m.v3_and_below_topics.push_back({"t", {0, 1}});
  // v3: the first flexible version, still one transaction.
  check_golden(m, 3, "02 78 | 00000000000003e8 | 0001 | 02 | 02 74 | 03 00000000 00000001 | 00 | 00");

  AddPartitionsToTxnRequest b;
  AddPartitionsToTxnRequest::AddPartitionsToTxnTransaction t;
  t.transactional_id = "x";
  t.producer_id = 1000;
  t.producer_epoch = 1;
  t.verify_only = true;
  t.topics.push_back({"t", {0, 1}});
  b.transactions.push_back(t);
  t.transactional_id = "y";
  t.verify_only = false;
  t.topics = {{"u", {2}}};
  b.transactions.push_back(t);
  // v4 (= v5): Transactions[] replaces the V3AndBelow fields.
  for (int16_t v : {4, 5}) {
    check_golden(b, v,
                 "03 |"
                 " 02 78 | 00000000000003e8 | 0001 | 01 | 02 | 02 74 | 03 00000000 00000001 | 00 | 00 |"
                 " 02 79 | 00000000000003e8 | 0001 | 00 | 02 | 02 75 | 02 00000002 | 00 | 00 |"
                 "00");
  }
}

TEST(GoldenTxnV4, AddPartitionsToTxnResponse) {
  AddPartitionsToTxnResponse r;
  AddPartitionsToTxnResponse::AddPartitionsToTxnTopicResult tr;
  tr.name = "t";
  tr.results_by_partition.push_back({0, ErrorCode::kNone});
  r.results_by_topic_v3_and_below.push_back(tr);
  check_golden(r, 3, "00000000 | 02 | 02 74 | 02 | 00000000 | 0000 | 00 | 00 | 00");

  AddPartitionsToTxnResponse b;
  auto& res = b.results_by_transaction.emplace_back();
  res.transactional_id = "x";
  tr.results_by_partition = {{0, ErrorCode::kTransactionAbortable}};
  res.topic_results.push_back(tr);
  for (int16_t v : {4, 5}) {
    check_golden(b, v, "00000000 | 0000 | 02 | 02 78 | 02 | 02 74 | 02 | 00000000 | 0078 | 00 | 00 | 00 | 00");
  }
}

TEST(GoldenTxnV4, AddOffsetsToTxnV3V4) {
  AddOffsetsToTxnRequest m;
  m.transactional_id = "x";
  m.producer_id = 1000;
  m.producer_epoch = 1;
  m.group_id = "g";
  for (int16_t v : {3, 4}) check_golden(m, v, "02 78 | 00000000000003e8 | 0001 | 02 67 | 00");
  AddOffsetsToTxnResponse r;
  r.error_code = ErrorCode::kTransactionAbortable;
  for (int16_t v : {3, 4}) check_golden(r, v, "00000000 | 0078 | 00");
}

TEST(GoldenTxnV4, EndTxnV3ToV5) {
  EndTxnRequest m;
  m.transactional_id = "x";
  m.producer_id = 1000;
  m.producer_epoch = 1;
  m.committed = true;
  for (int16_t v : {3, 4, 5}) check_golden(m, v, "02 78 | 00000000000003e8 | 0001 | 01 | 00");
  EndTxnResponse r;
  check_golden(r, 4, "00000000 | 0000 | 00");
  // v5: the producer id and epoch for the next transaction (-1 by default).
  check_golden(r, 5, "00000000 | 0000 | ffffffffffffffff | ffff | 00");
  r.producer_id = 1000;
  r.producer_epoch = 2;
  check_golden(r, 5, "00000000 | 0000 | 00000000000003e8 | 0002 | 00");
}

TEST(GoldenTxnV4, TxnOffsetCommitV4ToV6) {
  TxnOffsetCommitRequest m;
  m.transactional_id = "x";
  m.group_id = "g";
  m.producer_id = 1000;
  m.producer_epoch = 1;
  m.generation_id_or_member_epoch = 5;
  m.member_id = "m";
  TxnOffsetCommitRequest::TxnOffsetCommitRequestTopic t;
  t.name = "t";
  TxnOffsetCommitRequest::TxnOffsetCommitRequestPartition p;
  p.committed_offset = 10;
  p.committed_metadata = std::nullopt;
  t.partitions.push_back(p);
  m.topics.push_back(t);
  for (int16_t v : {4, 5}) {
    check_golden(m, v,
                 "02 78 | 02 67 | 00000000000003e8 | 0001 | 00000005 | 02 6d | 00 | 02 | 02 74 |"
                 "02 | 00000000 | 000000000000000a | ffffffff | 00 | 00 | 00 | 00");
  }
  // v6: TopicId replaces Name.
  m.topics[0].name.clear();
  m.topics[0].topic_id = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  check_golden(m, 6,
               "02 78 | 02 67 | 00000000000003e8 | 0001 | 00000005 | 02 6d | 00 | 02 |"
               "000102030405060708090a0b0c0d0e0f |"
               "02 | 00000000 | 000000000000000a | ffffffff | 00 | 00 | 00 | 00");

  TxnOffsetCommitResponse r;
  TxnOffsetCommitResponse::TxnOffsetCommitResponseTopic rt;
  rt.name = "t";
  rt.partitions.push_back({0, ErrorCode::kTransactionAbortable});
  r.topics.push_back(rt);
  check_golden(r, 4, "00000000 | 02 | 02 74 | 02 | 00000000 | 0078 | 00 | 00 | 00");
  r.topics[0].name.clear();
  r.topics[0].topic_id = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  r.topics[0].partitions[0].error_code = ErrorCode::kUnknownTopicId;
  check_golden(r, 6, "00000000 | 02 | 000102030405060708090a0b0c0d0e0f | 02 | 00000000 | 0064 | 00 | 00 | 00");
}

TEST(GoldenTxnV4, WriteTxnMarkersV2) {
  WriteTxnMarkersRequest m;
  WriteTxnMarkersRequest::WritableTxnMarker mk;
  mk.producer_id = 1000;
  mk.producer_epoch = 1;
  mk.transaction_result = true;
  mk.topics.push_back({"t", {0}});
  mk.coordinator_epoch = 2;
  mk.transaction_version = 2;
  m.markers.push_back(mk);
  check_golden(m, 2, "02 | 00000000000003e8 | 0001 | 01 | 02 | 02 74 | 02 00000000 | 00 | 00000002 | 02 | 00 | 00");
  EXPECT_EQ(WriteTxnMarkersRequest::kMinVersion, 1);  // v0 is gone since Kafka 4.0

  WriteTxnMarkersResponse r;
  WriteTxnMarkersResponse::WritableTxnMarkerResult res;
  res.producer_id = 1000;
  WriteTxnMarkersResponse::WritableTxnMarkerTopicResult tr;
  tr.name = "t";
  tr.partitions.push_back({0, ErrorCode::kInvalidProducerEpoch});
  res.topics.push_back(tr);
  r.markers.push_back(res);
  check_golden(r, 2, "02 | 00000000000003e8 | 02 | 02 74 | 02 | 00000000 | 002f | 00 | 00 | 00 | 00");
}

TEST(GoldenTxnV4, ListTransactionsV1V2) {
  ListTransactionsRequest m;
  m.state_filters = {"Ongoing"};
  m.duration_filter = 60000;
  check_golden(m, 1, "02 | 08 4f6e676f696e67 | 01 | 000000000000ea60 | 00");
  // v2: null pattern, then a pattern.
  check_golden(m, 2, "02 | 08 4f6e676f696e67 | 01 | 000000000000ea60 | 00 | 00");
  m.transactional_id_pattern = "tx-.*";
  m.producer_id_filters = {7};
  check_golden(m, 2, "02 | 08 4f6e676f696e67 | 02 0000000000000007 | 000000000000ea60 | 06 74782d2e2a | 00");

  ListTransactionsResponse r;
  r.error_code = ErrorCode::kInvalidRegularExpression;
  check_golden(r, 2, "00000000 | 0080 | 01 | 01 | 00");
  r.error_code = ErrorCode::kNone;
  r.unknown_state_filters = {"Nope"};
  auto& s = r.transaction_states.emplace_back();
  s.transactional_id = "x";
  s.producer_id = 1000;
  s.transaction_state = "Ongoing";
  for (int16_t v : {1, 2}) {
    check_golden(r, v, "00000000 | 0000 | 02 05 4e6f7065 | 02 | 02 78 | 00000000000003e8 | 08 4f6e676f696e67 | 00 | 00");
  }
}

}  // namespace
}  // namespace spool::protocol
