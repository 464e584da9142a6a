// Golden byte strings for the group APIs at the versions Kafka 4.4 added
// over Spool's earlier ranges: FindCoordinator v3-6 (KIP-699 batching),
// OffsetCommit v8-10 (topic ids), OffsetFetch v8-10 (batched groups, member
// epoch, topic ids), JoinGroup v6-9, SyncGroup v4-5, Heartbeat v4,
// LeaveGroup v4-5, DescribeGroups v5-6, ListGroups v5 and DeleteGroups v2-3.
// Expected bytes are written field by field from the Kafka 4.4 message specs
// (compact strings/arrays carry length+1, 00 ends each struct's tagged
// fields); check_golden also decodes them back and refuses every prefix.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/delete_groups_request.h"
#include "protocol/delete_groups_response.h"
#include "protocol/describe_groups_request.h"
#include "protocol/describe_groups_response.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/heartbeat_request.h"
#include "protocol/heartbeat_response.h"
#include "protocol/join_group_request.h"
#include "protocol/join_group_response.h"
#include "protocol/leave_group_request.h"
#include "protocol/leave_group_response.h"
#include "protocol/list_groups_request.h"
#include "protocol/list_groups_response.h"
#include "protocol/offset_commit_request.h"
#include "protocol/offset_commit_response.h"
#include "protocol/offset_fetch_request.h"
#include "protocol/offset_fetch_response.h"
#include "protocol/sync_group_request.h"
#include "protocol/sync_group_response.h"

namespace spool::protocol {
namespace {

using testing::check_golden;

// Compact literals: "g" 02 67 · "m" 02 6d · "t" 02 74 · "h" 02 68 ·
// "consumer" 09 636f6e73756d6572 · "range" 06 72616e6765 ·
// "Stable" 07 537461626c65 · "classic" 08 636c6173736963.
constexpr const char* kId = "000102030405060708090a0b0c0d0e0f";
Uuid test_id() {
  Uuid id{};
  for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<uint8_t>(i);
  return id;
}
std::string with_id(const std::string& before, const std::string& after) { return before + kId + after; }

TEST(GoldenGroupsV4FindCoordinator, Request) {
  FindCoordinatorRequest m;
  m.key = "g";
  check_golden(m, 3, "02 67 | 00 | 00");  // last version with Key
  FindCoordinatorRequest b;
  b.coordinator_keys = {"g", "h"};
  check_golden(b, 4, "00 | 03 02 67 02 68 | 00");
  FindCoordinatorRequest s;
  s.key_type = 2;
  s.coordinator_keys = {"s"};
  check_golden(s, 6, "02 | 02 02 73 | 00");
}

TEST(GoldenGroupsV4FindCoordinator, Response) {
  FindCoordinatorResponse old;
  old.error_message = "NONE";
  old.node_id = 1;
  old.host = "h";
  old.port = 9092;
  check_golden(old, 3, "00000000 | 0000 | 05 4e4f4e45 | 00000001 | 02 68 | 00002384 | 00");
  FindCoordinatorResponse m;
  FindCoordinatorResponse::Coordinator c;
  c.key = "g";
  c.node_id = 1;
  c.host = "h";
  c.port = 9092;
  m.coordinators.push_back(c);
  check_golden(m, 4, "00000000 | 02 | 02 67 | 00000001 | 02 68 | 00002384 | 0000 | 00 | 00 | 00");
  FindCoordinatorResponse e;
  FindCoordinatorResponse::Coordinator ec;
  ec.key = "s";
  ec.node_id = -1;
  ec.port = -1;
  ec.error_code = ErrorCode::kInvalidRequest;
  e.coordinators.push_back(ec);
  check_golden(e, 6, "00000000 | 02 | 02 73 | ffffffff | 01 | ffffffff | 002a | 00 | 00 | 00");
}

OffsetCommitRequest commit_request() {
  OffsetCommitRequest m;
  m.group_id = "g";
  m.generation_id_or_member_epoch = 1;
  m.member_id = "m";
  OffsetCommitRequest::OffsetCommitRequestTopic t;
  OffsetCommitRequest::OffsetCommitRequestPartition p;
  p.committed_offset = 10;
  p.committed_leader_epoch = 2;
  p.committed_metadata = "";
  t.partitions.push_back(p);
  m.topics.push_back(t);
  return m;
}

TEST(GoldenGroupsV4OffsetCommit, Request) {
  OffsetCommitRequest m = commit_request();
  m.topics[0].name = "t";
  const char* by_name =
      "02 67 | 00000001 | 02 6d | 00 | 02 | 02 74 | 02 | 00000000 | 000000000000000a | 00000002 | 01 | 00 |"
      "00 | 00";
  check_golden(m, 8, by_name);
  check_golden(m, 9, by_name);
  OffsetCommitRequest i = commit_request();
  i.topics[0].topic_id = test_id();
  check_golden(i, 10,
               with_id("02 67 | 00000001 | 02 6d | 00 | 02 |",
                       "| 02 | 00000000 | 000000000000000a | 00000002 | 01 | 00 | 00 | 00"));
}

TEST(GoldenGroupsV4OffsetCommit, Response) {
  OffsetCommitResponse m;
  OffsetCommitResponse::OffsetCommitResponseTopic t;
  t.name = "t";
  t.partitions.push_back({0, ErrorCode::kNone});
  m.topics.push_back(t);
  check_golden(m, 8, "00000000 | 02 | 02 74 | 02 | 00000000 | 0000 | 00 | 00 | 00");
  OffsetCommitResponse i;
  OffsetCommitResponse::OffsetCommitResponseTopic it;
  it.topic_id = test_id();
  it.partitions.push_back({3, ErrorCode::kUnknownTopicId});
  i.topics.push_back(it);
  check_golden(i, 10, with_id("00000000 | 02 |", "| 02 | 00000003 | 0064 | 00 | 00 | 00"));
}

TEST(GoldenGroupsV4OffsetFetch, Request) {
  OffsetFetchRequest all;  // null topics: every committed offset
  OffsetFetchRequest::OffsetFetchRequestGroup g;
  g.group_id = "g";
  all.groups.push_back(g);
  all.require_stable = true;
  check_golden(all, 8, "02 | 02 67 | 00 | 00 | 01 | 00");

  OffsetFetchRequest named;
  OffsetFetchRequest::OffsetFetchRequestGroup ng;
  ng.group_id = "g";
  OffsetFetchRequest::OffsetFetchRequestTopics t;
  t.name = "t";
  t.partition_indexes = {0, 1};
  ng.topics.emplace().push_back(t);
  named.groups.push_back(ng);
  check_golden(named, 9, "02 | 02 67 | 00 | ffffffff | 02 | 02 74 | 03 00000000 00000001 | 00 | 00 | 00 | 00");

  OffsetFetchRequest ids;
  OffsetFetchRequest::OffsetFetchRequestGroup ig;
  ig.group_id = "g";
  ig.member_id = "m";
  ig.member_epoch = 5;
  OffsetFetchRequest::OffsetFetchRequestTopics it;
  it.topic_id = test_id();
  it.partition_indexes = {0};
  ig.topics.emplace().push_back(it);
  ids.groups.push_back(ig);
  check_golden(ids, 10, with_id("02 | 02 67 | 02 6d | 00000005 | 02 |", "| 02 00000000 | 00 | 00 | 00 | 00"));
}

TEST(GoldenGroupsV4OffsetFetch, Response) {
  OffsetFetchResponse m;
  OffsetFetchResponse::OffsetFetchResponseGroup g;
  g.group_id = "g";
  OffsetFetchResponse::OffsetFetchResponseTopics t;
  t.name = "t";
  OffsetFetchResponse::OffsetFetchResponsePartitions p;
  p.committed_offset = 10;
  p.metadata = "";
  t.partitions.push_back(p);
  g.topics.push_back(t);
  m.groups.push_back(g);
  OffsetFetchResponse::OffsetFetchResponseGroup failed;
  failed.group_id = "h";
  failed.error_code = ErrorCode::kNotCoordinator;
  m.groups.push_back(failed);
  check_golden(m, 8,
               "00000000 | 03 | 02 67 | 02 | 02 74 | 02 | 00000000 | 000000000000000a | ffffffff | 01 | 0000 | 00 |"
               "00 | 0000 | 00 | 02 68 | 01 | 0010 | 00 | 00");

  OffsetFetchResponse i;
  OffsetFetchResponse::OffsetFetchResponseGroup ig;
  ig.group_id = "g";
  OffsetFetchResponse::OffsetFetchResponseTopics it;
  it.topic_id = test_id();
  OffsetFetchResponse::OffsetFetchResponsePartitions ip;
  ip.committed_offset = -1;
  ip.metadata = "";
  ip.error_code = ErrorCode::kUnknownTopicId;
  it.partitions.push_back(ip);
  ig.topics.push_back(it);
  i.groups.push_back(ig);
  check_golden(i, 10,
               with_id("00000000 | 02 | 02 67 | 02 |",
                       "| 02 | 00000000 | ffffffffffffffff | ffffffff | 01 | 0064 | 00 | 00 | 0000 | 00 | 00"));
}

JoinGroupRequest join_request() {
  JoinGroupRequest m;
  m.group_id = "g";
  m.session_timeout_ms = 10000;
  m.rebalance_timeout_ms = 30000;
  m.member_id = "m";
  m.protocol_type = "consumer";
  m.protocols.push_back({"range", Bytes{1}});
  return m;
}

TEST(GoldenGroupsV4JoinGroup, Request) {
  const std::string head =
      "02 67 | 00002710 | 00007530 | 02 6d | 00 | 09 636f6e73756d6572 | 02 | 06 72616e6765 | 02 01 | 00 |";
  check_golden(join_request(), 6, head + "00");
  JoinGroupRequest r = join_request();
  r.reason = "r";
  check_golden(r, 8, head + "02 72 | 00");
  check_golden(r, 9, head + "02 72 | 00");
}

TEST(GoldenGroupsV4JoinGroup, Response) {
  JoinGroupResponse m;
  m.generation_id = 1;
  m.protocol_type = "consumer";
  m.protocol_name = "range";
  m.leader = "m";
  m.member_id = "m";
  JoinGroupResponse::JoinGroupResponseMember mem;
  mem.member_id = "m";
  mem.metadata = {1};
  m.members.push_back(mem);
  check_golden(m, 7,
               "00000000 | 0000 | 00000001 | 09 636f6e73756d6572 | 06 72616e6765 | 02 6d | 02 6d | 02 | 02 6d |"
               "00 | 02 01 | 00 | 00");
  m.skip_assignment = true;
  check_golden(m, 9,
               "00000000 | 0000 | 00000001 | 09 636f6e73756d6572 | 06 72616e6765 | 02 6d | 01 | 02 6d | 02 |"
               "02 6d | 00 | 02 01 | 00 | 00");
  JoinGroupResponse e;  // MEMBER_ID_REQUIRED: null protocol type and name from v7
  e.error_code = ErrorCode::kMemberIdRequired;
  e.member_id = "m";
  check_golden(e, 7, "00000000 | 004f | ffffffff | 00 | 00 | 01 | 02 6d | 01 | 00");
  e.protocol_name = "";
  check_golden(e, 6, "00000000 | 004f | ffffffff | 01 | 01 | 02 6d | 01 | 00");
}

TEST(GoldenGroupsV4SyncGroup, RequestAndResponse) {
  SyncGroupRequest m;
  m.group_id = "g";
  m.generation_id = 1;
  m.member_id = "m";
  check_golden(m, 4, "02 67 | 00000001 | 02 6d | 00 | 01 | 00");
  m.protocol_type = "consumer";
  m.protocol_name = "range";
  m.assignments.push_back({"m", Bytes{1, 2}});
  check_golden(m, 5,
               "02 67 | 00000001 | 02 6d | 00 | 09 636f6e73756d6572 | 06 72616e6765 | 02 | 02 6d | 03 0102 | 00 |"
               "00");

  SyncGroupResponse e;
  e.error_code = ErrorCode::kRebalanceInProgress;
  check_golden(e, 4, "00000000 | 001b | 01 | 00");
  SyncGroupResponse r;
  r.protocol_type = "consumer";
  r.protocol_name = "range";
  r.assignment = {1, 2};
  check_golden(r, 5, "00000000 | 0000 | 09 636f6e73756d6572 | 06 72616e6765 | 03 0102 | 00");
  e.error_code = ErrorCode::kInconsistentGroupProtocol;
  check_golden(e, 5, "00000000 | 0017 | 00 | 00 | 01 | 00");
}

TEST(GoldenGroupsV4Heartbeat, RequestAndResponse) {
  HeartbeatRequest m;
  m.group_id = "g";
  m.generation_id = 1;
  m.member_id = "m";
  check_golden(m, 4, "02 67 | 00000001 | 02 6d | 00 | 00");
  m.group_instance_id = "i";
  check_golden(m, 4, "02 67 | 00000001 | 02 6d | 02 69 | 00");
  HeartbeatResponse r;
  r.error_code = ErrorCode::kRebalanceInProgress;
  check_golden(r, 4, "00000000 | 001b | 00");
}

TEST(GoldenGroupsV4LeaveGroup, RequestAndResponse) {
  LeaveGroupRequest m;
  m.group_id = "g";
  LeaveGroupRequest::MemberIdentity id;
  id.member_id = "m";
  m.members.push_back(id);
  check_golden(m, 4, "02 67 | 02 | 02 6d | 00 | 00 | 00");
  m.members[0].reason = "r";
  check_golden(m, 5, "02 67 | 02 | 02 6d | 00 | 02 72 | 00 | 00");

  LeaveGroupResponse r;
  LeaveGroupResponse::MemberResponse mr;
  mr.member_id = "m";
  mr.group_instance_id = "i";
  r.members.push_back(mr);
  check_golden(r, 4, "00000000 | 0000 | 02 | 02 6d | 02 69 | 0000 | 00 | 00");
  check_golden(r, 5, "00000000 | 0000 | 02 | 02 6d | 02 69 | 0000 | 00 | 00");
}

TEST(GoldenGroupsV4DescribeGroups, RequestAndResponse) {
  DescribeGroupsRequest m;
  m.groups = {"g"};
  m.include_authorized_operations = true;
  check_golden(m, 5, "02 02 67 | 01 | 00");
  check_golden(m, 6, "02 02 67 | 01 | 00");

  DescribeGroupsResponse r;
  DescribeGroupsResponse::DescribedGroup g;
  g.group_id = "g";
  g.group_state = "Stable";
  g.protocol_type = "consumer";
  g.protocol_data = "range";
  DescribeGroupsResponse::DescribedGroupMember mem;
  mem.member_id = "m";
  mem.client_id = "c";
  mem.client_host = "/h";
  mem.member_metadata = {1};
  mem.member_assignment = {2};
  g.members.push_back(mem);
  g.authorized_operations = 0x148;  // READ | DELETE | DESCRIBE
  r.groups.push_back(g);
  check_golden(r, 5,
               "00000000 | 02 | 0000 | 02 67 | 07 537461626c65 | 09 636f6e73756d6572 | 06 72616e6765 | 02 |"
               "02 6d | 00 | 02 63 | 03 2f68 | 02 01 | 02 02 | 00 | 00000148 | 00 | 00");

  DescribeGroupsResponse nf;  // v6 (KIP-1043): an unknown group
  DescribeGroupsResponse::DescribedGroup ng;
  ng.error_code = ErrorCode::kGroupIdNotFound;
  ng.error_message = "x";
  ng.group_id = "g";
  ng.group_state = "Dead";
  nf.groups.push_back(ng);
  check_golden(nf, 6, "00000000 | 02 | 0045 | 02 78 | 02 67 | 05 44656164 | 01 | 01 | 01 | 80000000 | 00 | 00");
}

TEST(GoldenGroupsV4ListGroups, RequestAndResponse) {
  ListGroupsRequest m;
  m.states_filter = {"Stable"};
  m.types_filter = {"classic"};
  check_golden(m, 5, "02 07 537461626c65 | 02 08 636c6173736963 | 00");
  ListGroupsRequest none;
  check_golden(none, 5, "01 | 01 | 00");

  ListGroupsResponse r;
  ListGroupsResponse::ListedGroup g;
  g.group_id = "g";
  g.protocol_type = "consumer";
  g.group_state = "Stable";
  g.group_type = "classic";
  r.groups.push_back(g);
  check_golden(r, 5,
               "00000000 | 0000 | 02 | 02 67 | 09 636f6e73756d6572 | 07 537461626c65 | 08 636c6173736963 | 00 |"
               "00");
}

TEST(GoldenGroupsV4DeleteGroups, RequestAndResponse) {
  DeleteGroupsRequest m;
  m.groups_names = {"g"};
  check_golden(m, 2, "02 02 67 | 00");
  check_golden(m, 3, "02 02 67 | 00");

  DeleteGroupsResponse r;
  DeleteGroupsResponse::DeletableGroupResult ok;
  ok.group_id = "g";
  r.results.push_back(ok);
  check_golden(r, 2, "00000000 | 02 | 02 67 | 0000 | 00 | 00");
  check_golden(r, 3, "00000000 | 02 | 02 67 | 0000 | 00 | 00 | 00");
  r.results[0].error_code = ErrorCode::kNotCoordinator;
  r.results[0].error_message = "x";
  check_golden(r, 3, "00000000 | 02 | 02 67 | 0010 | 02 78 | 00 | 00");
}

}  // namespace
}  // namespace spool::protocol
