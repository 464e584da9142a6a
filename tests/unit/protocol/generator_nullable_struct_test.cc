// Nullable structs (std::optional<Struct>) through the test-only definition
// messages/nullable_struct_test_request.json: in nullableVersions an int8
// marker (-1 null, 1 present) precedes the struct, as Kafka encodes
// DescribeTopicPartitions' Cursor; before them the struct is bare. Expected
// bytes written by hand.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol_test/nullable_struct_test_request.h"

namespace spool::protocol {
namespace {

using testing::check_golden;
using testing::hex;
using testing::to_hex;

using Req = NullableStructTestRequest;

Req with_cursor() {
  Req m;
  m.cursor = Req::Cursor{"a", 5};
  m.after = 7;
  return m;
}

TEST(GeneratorNullableStruct, DefaultIsNull) {
  Req m;
  EXPECT_FALSE(m.cursor.has_value());
  EXPECT_EQ(m.after, -1);
}

TEST(GeneratorNullableStruct, V0BareStructBeforeNullableVersions) {
  check_golden(with_cursor(), 0, "0001 61 | 00000005 | 00000007");
}

TEST(GeneratorNullableStruct, V0NullEncodesTheDefaults) {
  Req m;
  m.after = 7;
  ByteWriter w;
  m.encode(w, 0);
  EXPECT_EQ(to_hex(w.buffer()), to_hex(hex("0000 | 00000000 | 00000007")));
  // Decoding that version always yields a struct.
  Req d;
  ByteReader r(w.buffer());
  ASSERT_TRUE(d.decode(r, 0));
  ASSERT_TRUE(d.cursor.has_value());
  EXPECT_EQ(d.cursor->partition_index, 0);
}

TEST(GeneratorNullableStruct, V1MarkerNullAndPresent) {
  Req null_cursor;
  null_cursor.after = 7;
  check_golden(null_cursor, 1, "ff | 00000007 | 00000000");
  check_golden(with_cursor(), 1, "01 | 0001 61 | 00000005 | 00000007 | 00000000");
}

TEST(GeneratorNullableStruct, V2FlexibleStructInsideArrayElements) {
  Req m = with_cursor();
  m.items.push_back({"k", Req::Item::ExtraInfo{3}});
  m.items.push_back({"m", std::nullopt});
  check_golden(m, 2,
               "01 | 02 61 | 00000005 | 00 | 00000007 |"
               "03 | 02 6b | 01 0003 00 | 00 | 02 6d | ff | 00 | 00");
}

TEST(GeneratorNullableStruct, AnyNegativeMarkerIsNullAnyOtherIsPresent) {
  // Kafka reads a marker below zero as null and anything else as a struct.
  Req m;
  const Bytes neg = hex("80 | 00000007 | 00000000");
  ByteReader r1(neg);
  ASSERT_TRUE(m.decode(r1, 1));
  EXPECT_FALSE(m.cursor.has_value());
  const Bytes zero = hex("00 | 0001 62 | 00000002 | 00000007 | 00000000");
  ByteReader r2(zero);
  ASSERT_TRUE(m.decode(r2, 1));
  ASSERT_TRUE(m.cursor.has_value());
  EXPECT_EQ(m.cursor->topic_name, "b");
  EXPECT_EQ(m.cursor->partition_index, 2);
}

TEST(GeneratorNullableStruct, TruncatedAfterMarkerFails) {
  Req m;
  for (const char* in : {"01", "01 0001", "01 0001 61 0000"}) {
    const Bytes b = hex(in);
    ByteReader r(b);
    EXPECT_FALSE(m.decode(r, 1)) << in;
  }
}

}  // namespace
}  // namespace spool::protocol
