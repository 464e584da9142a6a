// Every message at every defined version: random and mutated inputs must
// decode or fail cleanly (never crash, never over-allocate), and whatever
// decodes must re-encode to bytes that decode to the same value.
#include <gtest/gtest.h>

#include <random>

#include "protocol/add_offsets_to_txn_request.h"
#include "protocol/add_offsets_to_txn_response.h"
#include "protocol/add_partitions_to_txn_request.h"
#include "protocol/add_partitions_to_txn_response.h"
#include "protocol/alter_configs_request.h"
#include "protocol/alter_configs_response.h"
#include "protocol/api_versions_request.h"
#include "protocol/api_versions_response.h"
#include "protocol/create_acls_request.h"
#include "protocol/create_acls_response.h"
#include "protocol/create_partitions_request.h"
#include "protocol/create_partitions_response.h"
#include "protocol/create_topics_request.h"
#include "protocol/create_topics_response.h"
#include "protocol/delete_acls_request.h"
#include "protocol/delete_acls_response.h"
#include "protocol/delete_groups_request.h"
#include "protocol/delete_groups_response.h"
#include "protocol/delete_records_request.h"
#include "protocol/delete_records_response.h"
#include "protocol/delete_topics_request.h"
#include "protocol/delete_topics_response.h"
#include "protocol/describe_acls_request.h"
#include "protocol/describe_acls_response.h"
#include "protocol/describe_cluster_request.h"
#include "protocol/describe_cluster_response.h"
#include "protocol/describe_configs_request.h"
#include "protocol/describe_configs_response.h"
#include "protocol/describe_groups_request.h"
#include "protocol/describe_groups_response.h"
#include "protocol/describe_log_dirs_request.h"
#include "protocol/describe_log_dirs_response.h"
#include "protocol/end_txn_request.h"
#include "protocol/end_txn_response.h"
#include "protocol/fetch_request.h"
#include "protocol/fetch_response.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/heartbeat_request.h"
#include "protocol/heartbeat_response.h"
#include "protocol/incremental_alter_configs_request.h"
#include "protocol/incremental_alter_configs_response.h"
#include "protocol/init_producer_id_request.h"
#include "protocol/init_producer_id_response.h"
#include "protocol/join_group_request.h"
#include "protocol/join_group_response.h"
#include "protocol/leave_group_request.h"
#include "protocol/leave_group_response.h"
#include "protocol/list_groups_request.h"
#include "protocol/list_groups_response.h"
#include "protocol/list_offsets_request.h"
#include "protocol/list_offsets_response.h"
#include "protocol/metadata_request.h"
#include "protocol/metadata_response.h"
#include "protocol/offset_commit_request.h"
#include "protocol/offset_commit_response.h"
#include "protocol/offset_delete_request.h"
#include "protocol/offset_delete_response.h"
#include "protocol/offset_fetch_request.h"
#include "protocol/offset_fetch_response.h"
#include "protocol/offset_for_leader_epoch_request.h"
#include "protocol/offset_for_leader_epoch_response.h"
#include "protocol/produce_request.h"
#include "protocol/produce_response.h"
#include "protocol/sasl_authenticate_request.h"
#include "protocol/sasl_authenticate_response.h"
#include "protocol/sasl_handshake_request.h"
#include "protocol/sasl_handshake_response.h"
#include "protocol/sync_group_request.h"
#include "protocol/sync_group_response.h"
#include "protocol/txn_offset_commit_request.h"
#include "protocol/txn_offset_commit_response.h"
#include "protocol/write_txn_markers_request.h"
#include "protocol/write_txn_markers_response.h"

namespace spool::protocol {
namespace {

template <typename M>
void fuzz_one(std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> len(0, 64);
  for (int16_t v = M::kMinVersion; v <= M::kMaxVersion; ++v) {
    for (int i = 0; i < 300; ++i) {
      Bytes in(static_cast<size_t>(len(rng)));
      for (auto& b : in) {
        // Bias towards small values and 0xff so lengths are sometimes plausible.
        int x = byte(rng);
        b = static_cast<uint8_t>(x < 96 ? 0 : x < 128 ? 1 : x < 160 ? 0xff : x);
      }
      M m;
      ByteReader r(in);
      if (!m.decode(r, v)) continue;
      ByteWriter w;
      m.encode(w, v);
      M again;
      ByteReader r2(w.buffer());
      ASSERT_TRUE(again.decode(r2, v)) << M::kApiKey << " v" << v;
      EXPECT_EQ(r2.remaining(), 0u);
      EXPECT_TRUE(again == m) << M::kApiKey << " v" << v;
    }
  }
}

template <typename... Ms>
void fuzz_all() {
  std::mt19937 rng(12345);
  (fuzz_one<Ms>(rng), ...);
}

TEST(Robustness, RandomInputsNeverCrashAndRoundTrip) {
  fuzz_all<ProduceRequest, ProduceResponse, FetchRequest, FetchResponse, ListOffsetsRequest,
           ListOffsetsResponse, MetadataRequest, MetadataResponse, ApiVersionsRequest,
           ApiVersionsResponse, CreateTopicsRequest, CreateTopicsResponse, DeleteTopicsRequest,
           DeleteTopicsResponse, FindCoordinatorRequest, FindCoordinatorResponse,
           JoinGroupRequest, JoinGroupResponse, SyncGroupRequest, SyncGroupResponse,
           HeartbeatRequest, HeartbeatResponse, LeaveGroupRequest, LeaveGroupResponse,
           OffsetCommitRequest, OffsetCommitResponse, OffsetFetchRequest, OffsetFetchResponse,
           ListGroupsRequest, ListGroupsResponse, DescribeGroupsRequest, DescribeGroupsResponse,
           InitProducerIdRequest, InitProducerIdResponse, DescribeConfigsRequest,
           DescribeConfigsResponse, SaslHandshakeRequest, SaslHandshakeResponse,
           SaslAuthenticateRequest, SaslAuthenticateResponse, DeleteRecordsRequest,
           DeleteRecordsResponse, OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse,
           CreatePartitionsRequest, CreatePartitionsResponse, DeleteGroupsRequest,
           DeleteGroupsResponse, AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, EndTxnRequest,
           EndTxnResponse, TxnOffsetCommitRequest, TxnOffsetCommitResponse,
           AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, WriteTxnMarkersRequest,
           WriteTxnMarkersResponse, DescribeClusterRequest, DescribeClusterResponse,
           AlterConfigsRequest, AlterConfigsResponse, IncrementalAlterConfigsRequest,
           IncrementalAlterConfigsResponse, OffsetDeleteRequest, OffsetDeleteResponse,
           DescribeAclsRequest, DescribeAclsResponse, CreateAclsRequest, CreateAclsResponse,
           DeleteAclsRequest, DeleteAclsResponse, DescribeLogDirsRequest, DescribeLogDirsResponse>();
}

}  // namespace
}  // namespace spool::protocol
