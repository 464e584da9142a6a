// Golden byte strings for further APIs from PROTOCOL-NOTES.md defined ahead
// of their handlers (SASL, DeleteRecords, OffsetForLeaderEpoch,
// CreatePartitions, DeleteGroups, AddOffsetsToTxn, EndTxn), at their lowest
// and highest defined versions. Expected bytes are written by hand.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/add_offsets_to_txn_request.h"
#include "protocol/add_offsets_to_txn_response.h"
#include "protocol/create_partitions_request.h"
#include "protocol/create_partitions_response.h"
#include "protocol/delete_groups_request.h"
#include "protocol/delete_groups_response.h"
#include "protocol/delete_records_request.h"
#include "protocol/delete_records_response.h"
#include "protocol/end_txn_request.h"
#include "protocol/end_txn_response.h"
#include "protocol/offset_for_leader_epoch_request.h"
#include "protocol/offset_for_leader_epoch_response.h"
#include "protocol/sasl_authenticate_request.h"
#include "protocol/sasl_authenticate_response.h"
#include "protocol/sasl_handshake_request.h"
#include "protocol/sasl_handshake_response.h"

namespace spool::protocol {
namespace {

using testing::check_golden;

TEST(GoldenSaslHandshake, RequestAndResponse) {
  SaslHandshakeRequest m;
  m.mechanism = "PLAIN";
  check_golden(m, 0, "0005 504c41494e");
  check_golden(m, 1, "0005 504c41494e");
  SaslHandshakeResponse r;
  r.mechanisms = {"PLAIN"};
  check_golden(r, 0, "0000 | 00000001 | 0005 504c41494e");
  check_golden(r, 1, "0000 | 00000001 | 0005 504c41494e");
  EXPECT_EQ(SaslHandshakeRequest::kFirstFlexibleVersion, INT16_MAX);
}

TEST(GoldenSaslAuthenticate, RequestAndResponse) {
  SaslAuthenticateRequest m;
  m.auth_bytes = {0x00, 0x75, 0x00, 0x70};
  check_golden(m, 0, "00000004 00750070");
  check_golden(m, 1, "00000004 00750070");
  SaslAuthenticateResponse r;
  check_golden(r, 0, "0000 | ffff | 00000000");
  r.session_lifetime_ms = 3600000;
  check_golden(r, 1, "0000 | ffff | 00000000 | 000000000036ee80");
}

TEST(GoldenDeleteRecords, RequestAndResponse) {
  DeleteRecordsRequest m;
  DeleteRecordsRequest::DeleteRecordsTopic t;
  t.name = "t";
  t.partitions.push_back({0, 5});
  m.topics.push_back(t);
  m.timeout_ms = 1000;
  for (int16_t v : {0, 1}) {
    check_golden(m, v, "00000001 | 0001 74 | 00000001 | 00000000 | 0000000000000005 | 000003e8");
  }
  DeleteRecordsResponse r;
  DeleteRecordsResponse::DeleteRecordsTopicResult tr;
  tr.name = "t";
  tr.partitions.push_back({0, 5, ErrorCode::kNone});
  r.topics.push_back(tr);
  for (int16_t v : {0, 1}) {
    check_golden(r, v,
                 "00000000 | 00000001 | 0001 74 | 00000001 | 00000000 | 0000000000000005 | 0000");
  }
}

TEST(GoldenOffsetForLeaderEpoch, Request) {
  OffsetForLeaderEpochRequest m;
  OffsetForLeaderEpochRequest::OffsetForLeaderTopic t;
  t.topic = "t";
  OffsetForLeaderEpochRequest::OffsetForLeaderPartition p;
  p.leader_epoch = 3;
  t.partitions.push_back(p);
  m.topics.push_back(t);
  check_golden(m, 0, "00000001 | 0001 74 | 00000001 | 00000000 | 00000003");
  m.topics[0].partitions[0].current_leader_epoch = 4;
  check_golden(m, 2, "00000001 | 0001 74 | 00000001 | 00000000 | 00000004 | 00000003");
  m.replica_id = 1;
  check_golden(m, 3,
               "00000001 | 00000001 | 0001 74 | 00000001 | 00000000 | 00000004 | 00000003");
}

TEST(GoldenOffsetForLeaderEpoch, Response) {
  OffsetForLeaderEpochResponse m;
  OffsetForLeaderEpochResponse::OffsetForLeaderTopicResult t;
  t.topic = "t";
  OffsetForLeaderEpochResponse::EpochEndOffset p;
  p.end_offset = 100;
  t.partitions.push_back(p);
  m.topics.push_back(t);
  check_golden(m, 0, "00000001 | 0001 74 | 00000001 | 0000 | 00000000 | 0000000000000064");
  m.topics[0].partitions[0].leader_epoch = 2;
  check_golden(m, 3,
               "00000000 | 00000001 | 0001 74 | 00000001 | 0000 | 00000000 | 00000002 |"
               "0000000000000064");
}

TEST(GoldenCreatePartitions, RequestAndResponse) {
  CreatePartitionsRequest m;
  CreatePartitionsRequest::CreatePartitionsTopic t;
  t.name = "t";
  t.count = 3;
  m.topics.push_back(t);
  m.timeout_ms = 1000;
  check_golden(m, 0, "00000001 | 0001 74 | 00000003 | ffffffff | 000003e8 | 00");
  CreatePartitionsRequest::CreatePartitionsAssignment a;
  a.broker_ids = {1};
  m.topics[0].assignments.emplace().push_back(a);
  m.validate_only = true;
  check_golden(m, 1, "00000001 | 0001 74 | 00000003 | 00000001 | 00000001 00000001 | 000003e8 | 01");

  CreatePartitionsResponse r;
  r.results.push_back({"t", ErrorCode::kInvalidPartitions, "bad"});
  check_golden(r, 0, "00000000 | 00000001 | 0001 74 | 0025 | 0003 626164");
  check_golden(r, 1, "00000000 | 00000001 | 0001 74 | 0025 | 0003 626164");
}

TEST(GoldenDeleteGroups, RequestAndResponse) {
  DeleteGroupsRequest m;
  m.groups_names = {"g"};
  check_golden(m, 0, "00000001 0001 67");
  check_golden(m, 1, "00000001 0001 67");
  DeleteGroupsResponse r;
  r.results.push_back({"g", ErrorCode::kGroupIdNotFound, std::nullopt});
  check_golden(r, 0, "00000000 | 00000001 | 0001 67 | 0045");
  check_golden(r, 1, "00000000 | 00000001 | 0001 67 | 0045");
}

TEST(GoldenAddOffsetsToTxn, RequestAndResponse) {
  AddOffsetsToTxnRequest m;
  m.transactional_id = "x";
  m.producer_id = 1000;
  m.producer_epoch = 1;
  m.group_id = "g";
  for (int16_t v : {0, 2}) check_golden(m, v, "0001 78 | 00000000000003e8 | 0001 | 0001 67");
  AddOffsetsToTxnResponse r;
  for (int16_t v : {0, 2}) check_golden(r, v, "00000000 | 0000");
}

TEST(GoldenEndTxn, RequestAndResponse) {
  EndTxnRequest m;
  m.transactional_id = "x";
  m.producer_id = 1000;
  m.producer_epoch = 1;
  m.committed = true;
  for (int16_t v : {0, 2}) check_golden(m, v, "0001 78 | 00000000000003e8 | 0001 | 01");
  EndTxnResponse r;
  r.error_code = ErrorCode::kConcurrentTransactions;
  for (int16_t v : {0, 2}) check_golden(r, v, "00000000 | 0033");
}

}  // namespace
}  // namespace spool::protocol
