#include "util/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string_view>

namespace spool {
namespace {

uint32_t crc_of(std::string_view s) { return crc32c(as_span(s)); }

TEST(Crc32c, KnownVectors) {
  EXPECT_EQ(crc_of("123456789"), 0xE3069283u);
  EXPECT_EQ(crc_of(""), 0u);

  uint8_t buf[32];
  std::fill(std::begin(buf), std::end(buf), 0x00);
  EXPECT_EQ(crc32c(buf, sizeof buf), 0x8A9136AAu);
  std::fill(std::begin(buf), std::end(buf), 0xFF);
  EXPECT_EQ(crc32c(buf, sizeof buf), 0x62A8AB43u);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(crc32c(buf, sizeof buf), 0x46DD794Eu);
}

TEST(Crc32c, PortableMatchesKnownVectors) {
  const std::string_view s = "123456789";
  EXPECT_EQ(crc32c_extend_portable(0, as_span(s).data(), s.size()), 0xE3069283u);
  uint8_t buf[32];
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(crc32c_extend_portable(0, buf, sizeof buf), 0x46DD794Eu);
}

TEST(Crc32c, ExtendEqualsOneShot) {
  const std::string_view s = "The quick brown fox jumps over the lazy dog";
  const auto* p = as_span(s).data();
  const uint32_t whole = crc32c(p, s.size());
  for (size_t split = 0; split <= s.size(); ++split) {
    EXPECT_EQ(crc32c_extend(crc32c(p, split), p + split, s.size() - split), whole) << split;
    EXPECT_EQ(crc32c_extend_portable(crc32c_extend_portable(0, p, split), p + split,
                                     s.size() - split),
              whole)
        << split;
  }
}

// Whatever path crc32c() dispatches to must agree with the table path for
// every length around the 8-byte stride and for unaligned starts.
TEST(Crc32c, HardwareAndPortableAgree) {
  std::mt19937 rng(12345);
  std::vector<uint8_t> data(300 + 16);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t len = 0; len + offset <= 300 + 8 && len <= 300; ++len) {
      const uint8_t* p = data.data() + offset;
      ASSERT_EQ(crc32c(p, len), crc32c_extend_portable(0, p, len))
          << "offset " << offset << " len " << len;
    }
  }
  // Also continue from a non-zero seed.
  for (size_t len = 0; len <= 300; ++len) {
    ASSERT_EQ(crc32c_extend(0xDEADBEEF, data.data() + 3, len),
              crc32c_extend_portable(0xDEADBEEF, data.data() + 3, len));
  }
}

TEST(Crc32c, ReportsHardwareAvailability) {
  // Only informative: the value depends on the CPU running the test.
  RecordProperty("hardware", crc32c_hardware_available() ? "yes" : "no");
  SUCCEED();
}

}  // namespace
}  // namespace spool
