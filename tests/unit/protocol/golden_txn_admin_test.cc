// Golden byte strings for the remaining PROTOCOL-NOTES.md APIs defined ahead
// of their handlers: transactional offsets and markers, DescribeCluster
// (flexible from v0), config changes and OffsetDelete. Written by hand.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/add_partitions_to_txn_request.h"
#include "protocol/add_partitions_to_txn_response.h"
#include "protocol/alter_configs_request.h"
#include "protocol/alter_configs_response.h"
#include "protocol/describe_cluster_request.h"
#include "protocol/describe_cluster_response.h"
#include "protocol/describe_log_dirs_request.h"
#include "protocol/describe_log_dirs_response.h"
#include "protocol/incremental_alter_configs_request.h"
#include "protocol/incremental_alter_configs_response.h"
#include "protocol/offset_delete_request.h"
#include "protocol/offset_delete_response.h"
#include "protocol/txn_offset_commit_request.h"
#include "protocol/txn_offset_commit_response.h"
#include "protocol/write_txn_markers_request.h"
#include "protocol/write_txn_markers_response.h"

namespace spool::protocol {
namespace {

using testing::check_golden;

TEST(GoldenTxnOffsetCommit, Request) {
  TxnOffsetCommitRequest m;
  m.transactional_id = "x";
  m.group_id = "g";
  m.producer_id = 1000;
  m.producer_epoch = 1;
  TxnOffsetCommitRequest::TxnOffsetCommitRequestTopic t;
  t.name = "t";
  TxnOffsetCommitRequest::TxnOffsetCommitRequestPartition p;
  p.committed_offset = 10;
  p.committed_metadata = "";
  t.partitions.push_back(p);
  m.topics.push_back(t);
  check_golden(m, 0,
               "0001 78 | 0001 67 | 00000000000003e8 | 0001 | 00000001 | 0001 74 | 00000001 |"
               "00000000 | 000000000000000a | 0000");
  m.generation_id_or_member_epoch = 5;
  m.member_id = "m";
  m.topics[0].partitions[0].committed_metadata = std::nullopt;
  check_golden(m, 3,
               "02 78 | 02 67 | 00000000000003e8 | 0001 | 00000005 | 02 6d | 00 | 02 | 02 74 |"
               "02 | 00000000 | 000000000000000a | ffffffff | 00 | 00 | 00 | 00");
}

TEST(GoldenTxnOffsetCommit, Response) {
  TxnOffsetCommitResponse m;
  TxnOffsetCommitResponse::TxnOffsetCommitResponseTopic t;
  t.name = "t";
  t.partitions.push_back({0, ErrorCode::kNone});
  m.topics.push_back(t);
  check_golden(m, 0, "00000000 | 00000001 | 0001 74 | 00000001 | 00000000 | 0000");
  check_golden(m, 3, "00000000 | 02 | 02 74 | 02 | 00000000 | 0000 | 00 | 00 | 00");
}

TEST(GoldenAddPartitionsToTxn, RequestAndResponse) {
  AddPartitionsToTxnRequest m;
  m.v3_and_below_transactional_id = "x";
  m.v3_and_below_producer_id = 1000;
  m.v3_and_below_producer_epoch = 1;
  m.v3_and_below_topics.push_back({"t", {0, 1}});
  for (int16_t v : {0, 2}) {
    check_golden(m, v, "0001 78 | 00000000000003e8 | 0001 | 00000001 | 0001 74 |"
                       "00000002 00000000 00000001");
  }
  AddPartitionsToTxnResponse r;
  AddPartitionsToTxnResponse::AddPartitionsToTxnTopicResult tr;
  tr.name = "t";
  tr.results_by_partition.push_back({0, ErrorCode::kNone});
  r.results_by_topic_v3_and_below.push_back(tr);
  for (int16_t v : {0, 2}) {
    check_golden(r, v, "00000000 | 00000001 | 0001 74 | 00000001 | 00000000 | 0000");
  }
}

TEST(GoldenWriteTxnMarkers, RequestAndResponse) {
  WriteTxnMarkersRequest m;
  WriteTxnMarkersRequest::WritableTxnMarker mk;
  mk.producer_id = 1000;
  mk.producer_epoch = 1;
  mk.transaction_result = true;
  mk.topics.push_back({"t", {0}});
  mk.coordinator_epoch = 2;
  m.markers.push_back(mk);
  // v0 was removed in Kafka 4.0; v1 is the lowest (v2: golden_txn_v4_test.cc).
  check_golden(m, 1,
               "02 | 00000000000003e8 | 0001 | 01 | 02 | 02 74 | 02 00000000 | 00 | 00000002 |"
               "00 | 00");

  WriteTxnMarkersResponse r;
  WriteTxnMarkersResponse::WritableTxnMarkerResult res;
  res.producer_id = 1000;
  WriteTxnMarkersResponse::WritableTxnMarkerTopicResult tr;
  tr.name = "t";
  tr.partitions.push_back({0, ErrorCode::kNone});
  res.topics.push_back(tr);
  r.markers.push_back(res);
  check_golden(r, 1, "02 | 00000000000003e8 | 02 | 02 74 | 02 | 00000000 | 0000 | 00 | 00 | 00 | 00");
}

TEST(GoldenDescribeCluster, FlexibleFromV0) {
  DescribeClusterRequest m;
  m.include_cluster_authorized_operations = true;
  check_golden(m, 0, "01 | 00");
  DescribeClusterResponse r;
  r.cluster_id = "c";
  r.controller_id = 1;
  r.brokers.push_back({1, "h", 9092, std::nullopt});
  check_golden(r, 0,
               "00000000 | 0000 | 00 | 02 63 | 00000001 | 02 | 00000001 | 02 68 | 00002384 | 00 |"
               "00 | 80000000 | 00");
  EXPECT_EQ(DescribeClusterRequest::kFirstFlexibleVersion, 0);
}

TEST(GoldenAlterConfigs, RequestAndResponse) {
  AlterConfigsRequest m;
  AlterConfigsRequest::AlterConfigsResource res;
  res.resource_type = 2;
  res.resource_name = "t";
  res.configs.push_back({"k", "v"});
  m.resources.push_back(res);
  for (int16_t v : {0, 1}) {
    check_golden(m, v, "00000001 | 02 | 0001 74 | 00000001 | 0001 6b | 0001 76 | 00");
  }
  AlterConfigsResponse r;
  r.responses.push_back({ErrorCode::kNone, std::nullopt, 2, "t"});
  for (int16_t v : {0, 1}) check_golden(r, v, "00000000 | 00000001 | 0000 | ffff | 02 | 0001 74");
}

TEST(GoldenIncrementalAlterConfigs, RequestAndResponse) {
  IncrementalAlterConfigsRequest m;
  IncrementalAlterConfigsRequest::AlterConfigsResource res;
  res.resource_type = 2;
  res.resource_name = "t";
  res.configs.push_back({"k", 1, std::nullopt});
  m.resources.push_back(res);
  m.validate_only = true;
  check_golden(m, 0, "00000001 | 02 | 0001 74 | 00000001 | 0001 6b | 01 | ffff | 01");
  IncrementalAlterConfigsResponse r;
  r.responses.push_back({ErrorCode::kNone, std::nullopt, 2, "t"});
  check_golden(r, 0, "00000000 | 00000001 | 0000 | ffff | 02 | 0001 74");
}

TEST(GoldenDescribeLogDirs, RequestAndResponse) {
  DescribeLogDirsRequest all;
  check_golden(all, 1, "ffffffff");  // v0 was removed in Kafka 4.0
  DescribeLogDirsRequest m;
  m.topics.emplace();
  m.topics->push_back({"t", {0}});
  check_golden(m, 1, "00000001 | 0001 74 | 00000001 | 00000000");
  DescribeLogDirsResponse r;
  DescribeLogDirsResponse::DescribeLogDirsTopic t;
  t.name = "t";
  t.partitions.push_back({0, 100, 0, false});
  r.results.push_back({ErrorCode::kNone, "/d", {t}});
  check_golden(r, 1,
               "00000000 | 00000001 | 0000 | 0002 2f64 | 00000001 | 0001 74 | 00000001 | 00000000 | "
               "0000000000000064 | 0000000000000000 | 00");
}

TEST(GoldenOffsetDelete, RequestAndResponse) {
  OffsetDeleteRequest m;
  m.group_id = "g";
  OffsetDeleteRequest::OffsetDeleteRequestTopic t;
  t.name = "t";
  t.partitions.push_back({0});
  m.topics.push_back(t);
  check_golden(m, 0, "0001 67 | 00000001 | 0001 74 | 00000001 | 00000000");
  OffsetDeleteResponse r;
  OffsetDeleteResponse::OffsetDeleteResponseTopic rt;
  rt.name = "t";
  rt.partitions.push_back({0, ErrorCode::kNone});
  r.topics.push_back(rt);
  check_golden(r, 0, "0000 | 00000000 | 00000001 | 0001 74 | 00000001 | 00000000 | 0000");
}

}  // namespace
}  // namespace spool::protocol
