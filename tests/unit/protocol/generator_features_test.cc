// Generator features exercised through a test-only definition
// (messages/sample_test_request.json); expected bytes written by hand.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol_test/sample_test_request.h"

namespace spool::protocol {
namespace {

using testing::check_golden;
using testing::hex;

constexpr const char* kId = "000102030405060708090a0b0c0d0e0f";

SampleTestRequest sample() {
  SampleTestRequest m;
  for (uint8_t i = 0; i < 16; ++i) m.id[i] = i;
  m.items.emplace().push_back({"a", std::nullopt});
  m.blob = Bytes{0xaa};
  return m;
}

TEST(GeneratorFeatures, Defaults) {
  SampleTestRequest m;
  EXPECT_EQ(m.ratio, 0.5);
  EXPECT_EQ(m.port, 9092);
  EXPECT_TRUE(m.flag);
  EXPECT_EQ(m.old_only, 7);
  EXPECT_EQ(m.id, Uuid{});
  EXPECT_EQ(m.leader.leader_id, -1);
  EXPECT_EQ(m.hint, -1);
  EXPECT_FALSE(m.items.has_value());
  EXPECT_EQ(SampleTestRequest::kFirstFlexibleVersion, 2);
}

TEST(GeneratorFeatures, V0ClassicEncodings) {
  check_golden(sample(), 0,
               std::string(kId) + "| 3fe0000000000000 | 2384 | 00000007 | 00000001 aa |"
                                  "00000001 | 0001 61");
}

TEST(GeneratorFeatures, V1FieldOrdinaryBeforeItBecomesTagged) {
  SampleTestRequest m = sample();
  m.blob = std::nullopt;
  m.hint = 9;
  check_golden(m, 1,
               std::string(kId) + "| 3fe0000000000000 | 2384 | 01 | 00000007 | ffffffff |"
                                  "00000001 | 0001 61 | 0000000000000009");
}

TEST(GeneratorFeatures, V2TaggedStructAndScalar) {
  SampleTestRequest m = sample();
  m.blob = std::nullopt;
  m.items = std::nullopt;
  m.leader = {1, 2};
  m.hint = 9;
  check_golden(m, 2,
               std::string(kId) + "| 3fe0000000000000 | 2384 | 01 | 00 | 00 |"
                                  "02 | 00 09 00000001 00000002 00 | 05 08 0000000000000009");
}

TEST(GeneratorFeatures, V3TaggedFieldInArrayElement) {
  SampleTestRequest m = sample();
  (*m.items)[0].note = "n";
  check_golden(m, 3,
               std::string(kId) + "| 3fe0000000000000 | 2384 | 01 | 02 aa | 02 | 02 61 |"
                                  "01 00 02 02 6e | 00");
}

TEST(GeneratorFeatures, TagsOutOfOrderAndUnknownAccepted) {
  SampleTestRequest m;
  const Bytes in = hex(std::string(kId) + "3fe0000000000000 2384 01 00 00 | 03 |"
                                         "05 08 0000000000000009 | 09 01 ff | 00 09 00000001 00000002 00");
  ByteReader r(in);
  ASSERT_TRUE(m.decode(r, 3));
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_EQ(m.hint, 9);
  EXPECT_EQ(m.leader.leader_epoch, 2);
}

}  // namespace
}  // namespace spool::protocol
