#include "protocol/api_table.h"

#include <algorithm>

#include "protocol/error_code.h"
#include "protocol/header.h"
#include "protocol/known_apis.h"
#include "protocol/messages.h"

namespace spool::protocol {

namespace {

// One served API; the static_asserts keep the advertised range inside what
// the message definitions can encode.
template <typename Req, typename Resp, int16_t Min, int16_t Max>
constexpr ApiRange serve(std::string_view name) {
  static_assert(Req::kApiKey == Resp::kApiKey);
  static_assert(Min >= Req::kMinVersion && Max <= Req::kMaxVersion && Min <= Max);
  static_assert(Min >= Resp::kMinVersion && Max <= Resp::kMaxVersion);
  static_assert(Req::kFirstFlexibleVersion == Resp::kFirstFlexibleVersion);
  return ApiRange{Req::kApiKey, Min, Max, Req::kFirstFlexibleVersion, name};
}

// Adding an API is one line here (plus its handler in the broker). Keep
// ordered by api key. Produce advertises v0-2 although the broker answers
// them UNSUPPORTED_VERSION: librdkafka disables compression otherwise.
constexpr ApiRange kServed[] = {
    serve<ProduceRequest, ProduceResponse, 0, 8>("Produce"),
    serve<FetchRequest, FetchResponse, 4, 11>("Fetch"),
    serve<ListOffsetsRequest, ListOffsetsResponse, 1, 5>("ListOffsets"),
    serve<MetadataRequest, MetadataResponse, 0, 8>("Metadata"),
    serve<OffsetCommitRequest, OffsetCommitResponse, 2, 7>("OffsetCommit"),
    serve<OffsetFetchRequest, OffsetFetchResponse, 1, 7>("OffsetFetch"),
    serve<FindCoordinatorRequest, FindCoordinatorResponse, 0, 2>("FindCoordinator"),
    serve<JoinGroupRequest, JoinGroupResponse, 0, 5>("JoinGroup"),
    serve<HeartbeatRequest, HeartbeatResponse, 0, 3>("Heartbeat"),
    serve<LeaveGroupRequest, LeaveGroupResponse, 0, 3>("LeaveGroup"),
    serve<SyncGroupRequest, SyncGroupResponse, 0, 3>("SyncGroup"),
    serve<DescribeGroupsRequest, DescribeGroupsResponse, 0, 4>("DescribeGroups"),
    serve<ListGroupsRequest, ListGroupsResponse, 0, 4>("ListGroups"),
    serve<ApiVersionsRequest, ApiVersionsResponse, 0, 3>("ApiVersions"),
    serve<CreateTopicsRequest, CreateTopicsResponse, 2, 4>("CreateTopics"),
    serve<DeleteTopicsRequest, DeleteTopicsResponse, 1, 3>("DeleteTopics"),
    serve<DeleteRecordsRequest, DeleteRecordsResponse, 0, 1>("DeleteRecords"),
    serve<InitProducerIdRequest, InitProducerIdResponse, 0, 4>("InitProducerId"),
    serve<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, 0, 2>("AddPartitionsToTxn"),
    serve<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, 0, 2>("AddOffsetsToTxn"),
    serve<EndTxnRequest, EndTxnResponse, 0, 2>("EndTxn"),
    serve<WriteTxnMarkersRequest, WriteTxnMarkersResponse, 0, 1>("WriteTxnMarkers"),
    serve<TxnOffsetCommitRequest, TxnOffsetCommitResponse, 0, 3>("TxnOffsetCommit"),
    serve<DescribeConfigsRequest, DescribeConfigsResponse, 1, 2>("DescribeConfigs"),
    serve<AlterConfigsRequest, AlterConfigsResponse, 0, 1>("AlterConfigs"),
    serve<DescribeLogDirsRequest, DescribeLogDirsResponse, 0, 1>("DescribeLogDirs"),
    serve<CreatePartitionsRequest, CreatePartitionsResponse, 0, 1>("CreatePartitions"),
    serve<DeleteGroupsRequest, DeleteGroupsResponse, 0, 1>("DeleteGroups"),
    serve<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 0, 0>("IncrementalAlterConfigs"),
    serve<OffsetDeleteRequest, OffsetDeleteResponse, 0, 0>("OffsetDelete"),
    serve<DescribeClusterRequest, DescribeClusterResponse, 0, 0>("DescribeCluster"),
    serve<DescribeProducersRequest, DescribeProducersResponse, 0, 0>("DescribeProducers"),
    serve<DescribeTransactionsRequest, DescribeTransactionsResponse, 0, 0>("DescribeTransactions"),
    serve<ListTransactionsRequest, ListTransactionsResponse, 0, 0>("ListTransactions"),
};

constexpr bool sorted_by_key() {
  for (size_t i = 1; i < std::size(kServed); ++i) {
    if (kServed[i - 1].api_key >= kServed[i].api_key) return false;
  }
  return true;
}
static_assert(sorted_by_key(), "kServed must be ordered by api key, without duplicates");

}  // namespace

std::span<const ApiRange> served_apis() { return kServed; }

const ApiRange* find_api(int16_t key) {
  for (const auto& a : kServed) {
    if (a.api_key == key) return &a;
  }
  return nullptr;
}

bool is_flexible(int16_t key, int16_t version) {
  for (const auto& a : kKnownApis) {
    if (a.api_key == key) return version >= a.first_flexible;
  }
  return false;
}

ApiVersionsResponse make_api_versions_response(int16_t /*version*/) {
  ApiVersionsResponse resp;
  resp.error_code = to_int(ErrorCode::kNone);
  resp.api_keys.reserve(std::size(kServed));
  for (const auto& a : kServed) {
    ApiVersionsResponse::ApiVersion v;
    v.api_key = a.api_key;
    v.min_version = a.min_version;
    v.max_version = a.max_version;
    resp.api_keys.push_back(v);
  }
  return resp;
}

Bytes encode_unsupported_api_versions(int32_t correlation_id) {
  const ApiRange* self = find_api(ApiVersionsRequest::kApiKey);
  ApiVersionsResponse resp;
  resp.error_code = to_int(ErrorCode::kUnsupportedVersion);
  ApiVersionsResponse::ApiVersion v;
  v.api_key = ApiVersionsRequest::kApiKey;
  v.min_version = self ? self->min_version : 0;
  v.max_version = self ? self->max_version : 0;
  resp.api_keys.push_back(v);
  ByteWriter w(32);
  encode_response_header(w, correlation_id, /*flexible=*/false);
  resp.encode(w, 0);
  return w.take();
}

}  // namespace spool::protocol
