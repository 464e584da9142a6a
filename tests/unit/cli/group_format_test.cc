// `spool group` formatting and the pure logic under it: describe rows (join of
// committed offsets, log end offsets and assignments), lag, '-' for unknown
// values, JSON shape, the reset target rule and ConsumerProtocol decoding.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/group_format.h"
#include "cli/group_parse.h"

namespace spool::cli {
namespace {

using nlohmann::json;

GroupMember member(const std::string& id, std::vector<AssignedTopic> assignment) {
  GroupMember m;
  m.member_id = id;
  m.client_id = "client-" + id;
  m.host = "/10.0.0." + id;
  m.assignment = std::move(assignment);
  return m;
}

// The row of `topic`/`partition`, or nullptr.
const GroupOffsetRow* row_of(const std::vector<GroupOffsetRow>& rows, const std::string& topic, int32_t partition) {
  for (const auto& r : rows) {
    if (r.topic == topic && r.partition == partition) return &r;
  }
  return nullptr;
}

TEST(GroupRows, JoinsCommittedAssignedAndLogEnd) {
  std::vector<GroupMember> members{member("1", {{"t", {0, 1}}}), member("2", {}), member("3", {{"u", {0}}})};
  std::map<TopicPartitionKey, int64_t> committed{{{"t", 0}, 10}, {{"t", 2}, 5}, {{"u", 0}, 7}};
  std::map<TopicPartitionKey, int64_t> log_end{{{"t", 0}, 30}, {{"t", 1}, 4}, {{"t", 2}, 5}};
  auto rows = build_offset_rows(members, committed, log_end);
  ASSERT_EQ(rows.size(), 5u);  // t0 t1 t2 u0 + member 2 without partitions
  EXPECT_EQ(rows[0].topic, "t");
  EXPECT_EQ(rows[0].partition, 0);
  EXPECT_EQ(rows[1].partition, 1);
  EXPECT_EQ(rows[2].partition, 2);
  EXPECT_EQ(rows[3].topic, "u");
  EXPECT_TRUE(rows[4].topic.empty());
  EXPECT_EQ(rows[4].member_id, "2");

  const auto* t0 = row_of(rows, "t", 0);
  EXPECT_EQ(t0->member_id, "1");
  EXPECT_EQ(group_lag(*t0), 20);
  const auto* t1 = row_of(rows, "t", 1);  // assigned, never committed
  EXPECT_FALSE(t1->current_offset);
  EXPECT_EQ(t1->log_end_offset, 4);
  EXPECT_FALSE(group_lag(*t1));
  const auto* t2 = row_of(rows, "t", 2);  // committed, unassigned
  EXPECT_TRUE(t2->member_id.empty());
  EXPECT_EQ(group_lag(*t2), 0);
  const auto* u0 = row_of(rows, "u", 0);  // log end unknown
  EXPECT_EQ(u0->current_offset, 7);
  EXPECT_FALSE(u0->log_end_offset);
  EXPECT_FALSE(group_lag(*u0));

  EXPECT_EQ(partitions_of(members, committed),
            (std::vector<TopicPartitionKey>{{"t", 0}, {"t", 1}, {"t", 2}, {"u", 0}}));
}

GroupDescription sample_group() {
  GroupDescription d;
  d.group_id = "g";
  d.state = "Stable";
  d.protocol_type = "consumer";
  d.protocol = "range";
  d.coordinator_id = 0;
  d.coordinator_host = "127.0.0.1";
  d.coordinator_port = 9092;
  d.members = {member("1", {{"t", {0}}})};
  d.offsets = build_offset_rows(d.members, {{{"t", 0}, 60}, {{"t", 1}, 3}}, {{{"t", 0}, 100}, {{"t", 1}, 3}});
  return d;
}

// Splits a table into lines and cells (runs of spaces separate cells).
std::vector<std::vector<std::string>> cells(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::vector<std::string> row;
    std::string cell;
    while (ls >> cell) row.push_back(cell);
    out.push_back(std::move(row));
  }
  return out;
}

TEST(GroupFormat, DescribeOffsetsTable) {
  auto t = cells(format_group_describe({sample_group()}, "offsets", false, OutputFormat::kTable));
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0], (std::vector<std::string>{"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG",
                                            "CONSUMER-ID", "HOST", "CLIENT-ID"}));
  EXPECT_EQ(t[1], (std::vector<std::string>{"g", "t", "0", "60", "100", "40", "1", "/10.0.0.1", "client-1"}));
  EXPECT_EQ(t[2], (std::vector<std::string>{"g", "t", "1", "3", "3", "0", "-", "-", "-"}));
}

TEST(GroupFormat, DescribeShowsDashForMissingValues) {
  GroupDescription d = sample_group();
  d.state = "Empty";
  d.members.clear();
  d.offsets = build_offset_rows({member("9", {{"x", {4}}})}, {}, {});
  std::string text = format_group_describe({d}, "offsets", false, OutputFormat::kTable);
  EXPECT_NE(text.find("Consumer group 'g' has no active members."), std::string::npos);
  auto t = cells(text);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[2], (std::vector<std::string>{"g", "x", "4", "-", "-", "-", "9", "/10.0.0.9", "client-9"}));
}

TEST(GroupFormat, DescribeMembersAndState) {
  GroupDescription d = sample_group();
  d.members.push_back(member("2", {{"t", {1, 2}}, {"u", {0}}}));
  auto t = cells(format_group_describe({d}, "members", false, OutputFormat::kTable));
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0], (std::vector<std::string>{"GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"}));
  EXPECT_EQ(t[2], (std::vector<std::string>{"g", "2", "/10.0.0.2", "client-2", "3"}));
  t = cells(format_group_describe({d}, "members", true, OutputFormat::kTable));
  EXPECT_EQ(t[2], (std::vector<std::string>{"g", "2", "-", "/10.0.0.2", "client-2", "3", "t(1,2),u(0)"}));
  t = cells(format_group_describe({d}, "state", false, OutputFormat::kTable));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1], (std::vector<std::string>{"g", "127.0.0.1:9092", "(0)", "range", "Stable", "2"}));
}

TEST(GroupFormat, DescribeJsonShape) {
  auto j = json::parse(format_group_describe({sample_group()}, "members", false, OutputFormat::kJson));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 1u);
  const auto& g = j[0];
  EXPECT_EQ(g["group"], "g");
  EXPECT_EQ(g["state"], "Stable");
  EXPECT_EQ(g["protocol"], "range");
  EXPECT_EQ(g["coordinator"]["port"], 9092);
  ASSERT_EQ(g["offsets"].size(), 2u);
  EXPECT_EQ(g["offsets"][0]["lag"], 40);
  EXPECT_EQ(g["offsets"][0]["consumer_id"], "1");
  EXPECT_TRUE(g["offsets"][1]["consumer_id"].is_null());
  ASSERT_EQ(g["members"].size(), 1u);
  EXPECT_EQ(g["members"][0]["partitions"], 1);
  EXPECT_EQ(g["members"][0]["assignment"][0]["topic"], "t");
  EXPECT_EQ(g["members"][0]["assignment"][0]["partitions"], json::array({0}));

  GroupDescription missing;
  missing.group_id = "gone";
  missing.state = "Dead";
  missing.offsets = build_offset_rows({}, {{{"t", 0}, 1}}, {});
  j = json::parse(format_group_describe({missing}, "offsets", false, OutputFormat::kJson));
  EXPECT_TRUE(j[0]["coordinator"].is_null());
  EXPECT_EQ(j[0]["error"], "GROUP_ID_NOT_FOUND");
  EXPECT_TRUE(j[0]["offsets"][0]["lag"].is_null());
  EXPECT_TRUE(j[0]["offsets"][0]["log_end_offset"].is_null());
  EXPECT_EQ(j[0]["offsets"][0]["current_offset"], 1);
}

TEST(GroupFormat, ListTableAndJson) {
  std::vector<GroupListing> groups{{"zeta", "Stable", "consumer"}, {"alpha", "", "connect"}};
  auto t = cells(format_group_list(groups, OutputFormat::kTable));
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0], (std::vector<std::string>{"GROUP", "STATE", "PROTOCOL-TYPE"}));
  EXPECT_EQ(t[1], (std::vector<std::string>{"alpha", "-", "connect"}));
  EXPECT_EQ(t[2], (std::vector<std::string>{"zeta", "Stable", "consumer"}));
  auto j = json::parse(format_group_list(groups, OutputFormat::kJson));
  EXPECT_EQ(j, json::parse(R"([{"group":"alpha","state":null,"protocol_type":"connect"},
                               {"group":"zeta","state":"Stable","protocol_type":"consumer"}])"));
}

TEST(GroupFormat, DeleteExplainsNonEmptyGroup) {
  std::vector<GroupOpResult> r{{"a", 0}, {"b", 68}, {"c", 69}};
  std::string text = format_group_delete(r, OutputFormat::kTable);
  EXPECT_NE(text.find("Deletion of requested consumer groups ('a') was successful."), std::string::npos);
  EXPECT_NE(text.find("'b' failed: NON_EMPTY_GROUP (the group still has active members"), std::string::npos);
  EXPECT_NE(text.find("'c' failed: GROUP_ID_NOT_FOUND (the group does not exist)"), std::string::npos);
  auto j = json::parse(format_group_delete(r, OutputFormat::kJson));
  EXPECT_EQ(j[0]["ok"], true);
  EXPECT_EQ(j[1]["error"], "NON_EMPTY_GROUP");
  EXPECT_EQ(j[1]["error_code"], 68);
}

TEST(GroupFormat, ResetPlan) {
  std::vector<ResetPlanRow> plan{{"g", "t", 0, 60, 0, ""}, {"g", "t", 1, std::nullopt, std::nullopt, "no offset"}};
  auto t = cells(format_reset_plan({plan[0]}, OutputFormat::kTable));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0], (std::vector<std::string>{"GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"}));
  EXPECT_EQ(t[1], (std::vector<std::string>{"g", "t", "0", "0"}));
  t = cells(format_reset_plan(plan, OutputFormat::kTable));
  EXPECT_EQ(t[0].back(), "ERROR");
  EXPECT_EQ(t[2][3], "-");
  auto j = json::parse(format_reset_plan(plan, OutputFormat::kJson));
  EXPECT_EQ(j[0], json::parse(R"({"group":"g","topic":"t","partition":0,"current_offset":60,"new_offset":0})"));
  EXPECT_TRUE(j[1]["new_offset"].is_null());
  EXPECT_EQ(j[1]["error"], "no offset");
}

TEST(GroupFormat, OffsetDelete) {
  std::string text = format_offset_delete("g", 0, {{"t", 0, 0}, {"t", 1, 86}}, OutputFormat::kTable);
  EXPECT_NE(text.find("Request failed for some partitions"), std::string::npos);
  EXPECT_NE(text.find("Successful"), std::string::npos);
  EXPECT_NE(text.find("GROUP_SUBSCRIBED_TO_TOPIC"), std::string::npos);
  auto t = cells(format_offset_delete("g", 0, {{"gone", -1, 3}}, OutputFormat::kTable));
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[2][0], "gone");
  EXPECT_EQ(t[2][1], "-");
  EXPECT_TRUE(json::parse(format_offset_delete("g", 0, {{"gone", -1, 3}}, OutputFormat::kJson))["partitions"][0]
                  ["partition"]
                      .is_null());
  text = format_offset_delete("g", 69, {}, OutputFormat::kTable);
  EXPECT_NE(text.find("GROUP_ID_NOT_FOUND"), std::string::npos);
  auto j = json::parse(format_offset_delete("g", 0, {{"t", 0, 0}}, OutputFormat::kJson));
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["partitions"][0]["partition"], 0);
}

TEST(ResetTarget, ClampsLikeKafka) {
  PartitionOffsets p{60, 10, 100, std::nullopt};
  EXPECT_EQ(*reset_target({ResetKind::kEarliest, 0}, p), 10);
  EXPECT_EQ(*reset_target({ResetKind::kLatest, 0}, p), 100);
  EXPECT_EQ(*reset_target({ResetKind::kCurrent, 0}, p), 60);
  EXPECT_EQ(*reset_target({ResetKind::kToOffset, 5}, p), 10);
  EXPECT_EQ(*reset_target({ResetKind::kToOffset, 50}, p), 50);
  EXPECT_EQ(*reset_target({ResetKind::kToOffset, 500}, p), 100);
  EXPECT_EQ(*reset_target({ResetKind::kShiftBy, -5}, p), 55);
  EXPECT_EQ(*reset_target({ResetKind::kShiftBy, -55}, p), 10);
  EXPECT_EQ(*reset_target({ResetKind::kShiftBy, 45}, p), 100);
  EXPECT_EQ(*reset_target({ResetKind::kShiftBy, INT64_MAX}, p), 100);
  EXPECT_EQ(*reset_target({ResetKind::kShiftBy, INT64_MIN}, p), 10);
  EXPECT_EQ(*reset_target({ResetKind::kToDatetime, 0}, p), 100);  // no record at/after: log end
  p.at_datetime = 42;
  EXPECT_EQ(*reset_target({ResetKind::kToDatetime, 0}, p), 42);
  p.committed.reset();
  EXPECT_FALSE(reset_target({ResetKind::kShiftBy, 1}, p));
  EXPECT_FALSE(reset_target({ResetKind::kCurrent, 0}, p));
  EXPECT_EQ(*reset_target({ResetKind::kEarliest, 0}, p), 10);
}

TEST(ConsumerAssignment, RoundTripsAndRejectsGarbage) {
  std::vector<AssignedTopic> topics{{"orders", {0, 2}}, {"x", {}}};
  Bytes b = encode_consumer_assignment(topics, 1);
  auto d = decode_consumer_assignment(b);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->size(), 2u);
  EXPECT_EQ((*d)[0].topic, "orders");
  EXPECT_EQ((*d)[0].partitions, (std::vector<int32_t>{0, 2}));
  EXPECT_TRUE((*d)[1].partitions.empty());
  EXPECT_TRUE(decode_consumer_assignment({})->empty());
  // Every truncation of a valid buffer is refused (before the user data).
  for (size_t n = 1; n + 4 < b.size(); ++n) {
    EXPECT_FALSE(decode_consumer_assignment(ByteSpan(b.data(), n))) << n;
  }
  Bytes huge{0, 0, 0x7f, 0xff, 0xff, 0xff};  // 2^31-1 topics in 6 bytes
  EXPECT_FALSE(decode_consumer_assignment(huge));
  Bytes negative{0, 0, 0, 0, 0, 1, 0xff, 0xff};  // topic name length -1
  EXPECT_FALSE(decode_consumer_assignment(negative));
}

}  // namespace
}  // namespace spool::cli
