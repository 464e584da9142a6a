#include "util/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace spool::util {
namespace {

TEST(Utf8, ValidPrefixStopsAtTheFirstBadCharacter) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // é € 😀
  EXPECT_EQ(utf8_valid_prefix("ab\xc3"), 2u);                               // cut character
  EXPECT_EQ(utf8_valid_prefix("ab\xc0\xaf"), 2u);                           // overlong '/'
  EXPECT_EQ(utf8_valid_prefix("a\xed\xa0\x80"), 1u);                        // surrogate
  EXPECT_EQ(utf8_valid_prefix("\xf4\x90\x80\x80"), 0u);                     // above U+10FFFF
  EXPECT_EQ(utf8_valid_prefix("x\xff"), 1u);
  EXPECT_FALSE(is_valid_utf8(std::string("a\x80", 2)));
}

}  // namespace
}  // namespace spool::util
