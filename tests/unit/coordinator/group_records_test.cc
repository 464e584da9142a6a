// __consumer_offsets record format: round trips, older versions, and
// rejection of truncated/garbage input; group -> partition mapping.
#include <gtest/gtest.h>

#include <random>

#include "coordinator/group/consumer_protocol.h"
#include "coordinator/group/group_records.h"
#include "coordinator_test_support.h"

namespace spool::coordinator {
namespace {

GroupRecordValue sample_group() {
  GroupRecordValue v;
  v.protocol_type = "consumer";
  v.generation = 7;
  v.protocol = "range";
  v.leader = "m1";
  v.current_state_timestamp = 1234567;
  v.members.push_back({"m1", std::nullopt, "c1", "/1.2.3.4", 30000, 10000, Bytes{1, 2, 3}, Bytes{4, 5}});
  v.members.push_back({"m2", std::string("inst-2"), "c2", "/5.6.7.8", 60000, 6000, Bytes{}, Bytes{9}});
  return v;
}

TEST(GroupRecords, OffsetKeyRoundTripAndLayout) {
  OffsetRecordKey k{"g", "topic", 3};
  Bytes b = encode_key(k);
  // int16 version 1, "g", "topic", int32 3.
  Bytes expect{0, 1, 0, 1, 'g', 0, 5, 't', 'o', 'p', 'i', 'c', 0, 0, 0, 3};
  EXPECT_EQ(b, expect);
  auto d = decode_key(ByteSpan(b));
  ASSERT_TRUE(d.is_ok()) << d.status().message();
  ASSERT_TRUE(std::holds_alternative<OffsetRecordKey>(*d));
  EXPECT_EQ(std::get<OffsetRecordKey>(*d), k);
}

TEST(GroupRecords, GroupKeyRoundTrip) {
  Bytes b = encode_key(GroupRecordKey{"my-group"});
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[1], 2);
  auto d = decode_key(ByteSpan(b));
  ASSERT_TRUE(d.is_ok());
  EXPECT_EQ(std::get<GroupRecordKey>(*d).group, "my-group");
}

TEST(GroupRecords, OffsetKeyVersionZeroIsAccepted) {
  Bytes b = encode_key(OffsetRecordKey{"g", "t", 1});
  b[1] = 0;
  auto d = decode_key(ByteSpan(b));
  ASSERT_TRUE(d.is_ok());
  EXPECT_EQ(std::get<OffsetRecordKey>(*d).topic, "t");
}

TEST(GroupRecords, OffsetValueV3RoundTrip) {
  OffsetRecordValue v{42, 5, "meta", 99999, -1};
  Bytes b = encode_value(v);
  EXPECT_EQ(b[1], 3);
  auto d = decode_offset_value(ByteSpan(b));
  ASSERT_TRUE(d.is_ok()) << d.status().message();
  EXPECT_EQ(*d, v);
}

TEST(GroupRecords, OffsetValueWithExpireTimestampUsesV1) {
  OffsetRecordValue v{42, -1, "", 100, 500};
  Bytes b = encode_value(v);
  EXPECT_EQ(b[1], 1);
  auto d = decode_offset_value(ByteSpan(b));
  ASSERT_TRUE(d.is_ok());
  EXPECT_EQ(d->expire_timestamp, 500);
  EXPECT_EQ(d->offset, 42);
  EXPECT_EQ(d->leader_epoch, -1);
}

TEST(GroupRecords, OffsetValueV0) {
  ByteWriter w;
  w.i16(0);
  w.i64(10);
  w.i16(2);
  w.bytes(std::string_view("hi"));
  w.i64(77);
  auto d = decode_offset_value(ByteSpan(w.buffer()));
  ASSERT_TRUE(d.is_ok());
  EXPECT_EQ(d->offset, 10);
  EXPECT_EQ(d->metadata, "hi");
  EXPECT_EQ(d->commit_timestamp, 77);
}

TEST(GroupRecords, GroupValueRoundTrip) {
  GroupRecordValue v = sample_group();
  Bytes b = encode_value(v);
  auto d = decode_group_value(ByteSpan(b));
  ASSERT_TRUE(d.is_ok()) << d.status().message();
  EXPECT_EQ(*d, v);
}

TEST(GroupRecords, EmptyGroupValueWithNullProtocolAndLeader) {
  GroupRecordValue v;
  v.protocol_type = "consumer";
  v.generation = 3;
  Bytes b = encode_value(v);
  auto d = decode_group_value(ByteSpan(b));
  ASSERT_TRUE(d.is_ok());
  EXPECT_FALSE(d->protocol.has_value());
  EXPECT_FALSE(d->leader.has_value());
  EXPECT_TRUE(d->members.empty());
}

TEST(GroupRecords, EveryTruncationIsRejected) {
  const std::vector<Bytes> inputs = {encode_value(sample_group()), encode_value(OffsetRecordValue{1, 2, "x", 3, -1}),
                                     encode_key(OffsetRecordKey{"g", "t", 0}), encode_key(GroupRecordKey{"g"})};
  for (size_t which = 0; which < inputs.size(); ++which) {
    const Bytes& full = inputs[which];
    for (size_t n = 0; n < full.size(); ++n) {
      ByteSpan cut(full.data(), n);
      bool ok = which == 0 ? decode_group_value(cut).is_ok()
                : which == 1 ? decode_offset_value(cut).is_ok()
                             : decode_key(cut).is_ok();
      EXPECT_FALSE(ok) << "input " << which << " truncated to " << n;
    }
  }
}

TEST(GroupRecords, TrailingBytesAndUnknownVersionsAreRejected) {
  Bytes b = encode_value(OffsetRecordValue{1, 2, "x", 3, -1});
  b.push_back(0);
  EXPECT_FALSE(decode_offset_value(ByteSpan(b)).is_ok());
  Bytes k = encode_key(GroupRecordKey{"g"});
  k[1] = 9;
  EXPECT_FALSE(decode_key(ByteSpan(k)).is_ok());
  Bytes g = encode_value(sample_group());
  g[1] = 4;
  EXPECT_FALSE(decode_group_value(ByteSpan(g)).is_ok());
  Bytes neg{0xff, 0xff};
  EXPECT_FALSE(decode_key(ByteSpan(neg)).is_ok());
}

TEST(GroupRecords, HugeMemberCountIsRejectedWithoutAllocating) {
  ByteWriter w;
  w.i16(3);
  w.i16(0);  // protocol type ""
  w.i32(1);
  w.i16(-1);
  w.i16(-1);
  w.i64(0);
  w.i32(0x7fffffff);
  EXPECT_FALSE(decode_group_value(ByteSpan(w.buffer())).is_ok());
}

TEST(GroupRecords, RandomGarbageNeverCrashes) {
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    Bytes b(rng() % 64);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    if (b.size() >= 2 && (i & 1)) {  // steer into known versions
      b[0] = 0;
      b[1] = static_cast<uint8_t>(rng() % 4);
    }
    (void)decode_key(ByteSpan(b));
    (void)decode_offset_value(ByteSpan(b));
    (void)decode_group_value(ByteSpan(b));
    (void)decode_subscription_topics(ByteSpan(b));
  }
  SUCCEED();
}

TEST(ConsumerProtocol, DecodesTopicsAndRejectsGarbage) {
  auto t = decode_subscription_topics(ByteSpan(testing::subscription({"a", "bb"})));
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, (std::set<std::string>{"a", "bb"}));
  Bytes bad{0, 0, 0, 0, 0, 5, 0, 1};
  EXPECT_FALSE(decode_subscription_topics(ByteSpan(bad)).has_value());
}

class PartitionFor : public testing::CoordinatorTest {};

TEST_F(PartitionFor, MatchesJavaStringHashCode) {
  testing::FakeOffsetsLog log50(50);
  GroupCoordinator c(log50, options());
  // "" -> 0.
  EXPECT_EQ(c.partition_for(""), 0);
  // "a" -> 97 % 50 = 47.
  EXPECT_EQ(c.partition_for("a"), 47);
  // "ab" -> 97*31 + 98 = 3105 % 50 = 5.
  EXPECT_EQ(c.partition_for("ab"), 5);
  // "group" -> 98629247 (g=103,r=114,o=111,u=117,p=112: ((((103*31+114)*31+111)*31+117)*31+112)) % 50 = 47.
  EXPECT_EQ(c.partition_for("group"), 98629247 % 50);
  // "test-group": 627841412 after 32-bit wrapping; % 50 = 12.
  EXPECT_EQ(c.partition_for("test-group"), 12);
  // "polygenelubricants".hashCode() == Integer.MIN_VALUE; Utils.abs -> 0.
  EXPECT_EQ(c.partition_for("polygenelubricants"), 0);
  // U+00E9 is one UTF-16 unit: 233 % 50 = 33.
  EXPECT_EQ(c.partition_for("\xC3\xA9"), 33);
  // U+1F600 is a surrogate pair D83D DE00: 55357*31 + 56832 = 1772899 % 50 = 49.
  EXPECT_EQ(c.partition_for("\xF0\x9F\x98\x80"), 1772899 % 50);
}

}  // namespace
}  // namespace spool::coordinator
