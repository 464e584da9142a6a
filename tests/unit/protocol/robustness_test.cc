// Every message at every defined version: random and mutated inputs must
// decode or fail cleanly (never crash, never over-allocate), and whatever
// decodes must re-encode to bytes that decode to the same value.
#include <gtest/gtest.h>

#include <random>

#include "protocol/messages.h"

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
