#include "config/properties.h"

#include <gtest/gtest.h>

namespace spool::config {
namespace {

PropertyList parse(std::string_view text) {
  auto r = parse_properties(text);
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  return r.is_ok() ? *r : PropertyList{};
}

TEST(Properties, SeparatorsAndComments) {
  auto p = parse(
      "# comment\n"
      "! also a comment\n"
      "\n"
      "a=1\n"
      "b : 2\n"
      "c 3\n"
      "  d   =   spaced value   \n"
      "e=\n"
      "f\n");
  ASSERT_EQ(p.size(), 6u);
  EXPECT_EQ(p[0], (std::pair<std::string, std::string>{"a", "1"}));
  EXPECT_EQ(p[1], (std::pair<std::string, std::string>{"b", "2"}));
  EXPECT_EQ(p[2], (std::pair<std::string, std::string>{"c", "3"}));
  EXPECT_EQ(p[3], (std::pair<std::string, std::string>{"d", "spaced value"}));
  EXPECT_EQ(p[4], (std::pair<std::string, std::string>{"e", ""}));
  EXPECT_EQ(p[5], (std::pair<std::string, std::string>{"f", ""}));
}

TEST(Properties, ValueKeepsLaterSeparators) {
  auto p = parse("listeners=PLAINTEXT://host:9092\nurl = a=b:c\n");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].second, "PLAINTEXT://host:9092");
  EXPECT_EQ(p[1].second, "a=b:c");
}

TEST(Properties, ContinuationLines) {
  auto p = parse("log.dirs=/a,\\\n    /b,\\\n\t/c\nnext=1\n");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].second, "/a,/b,/c");
  EXPECT_EQ(p[1].first, "next");
}

TEST(Properties, EvenBackslashesDoNotContinue) {
  auto p = parse("path=c:\\\\\nnext=1\n");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].second, "c:\\");
}

TEST(Properties, Escapes) {
  auto p = parse("key\\=with\\:seps=v\\tx\\u0041\\q\n");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].first, "key=with:seps");
  EXPECT_EQ(p[0].second, "v\txAq");
}

TEST(Properties, CrLfAndCrLineEnds) {
  auto p = parse("a=1\r\nb=2\rc=3");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[2].second, "3");
}

TEST(Properties, CommentInsideValueIsValue) {
  auto p = parse("a=1 # not a comment\n");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].second, "1 # not a comment");
}

TEST(Properties, MalformedUnicodeEscapeFails) {
  EXPECT_FALSE(parse_properties("a=\\u12").is_ok());
  EXPECT_FALSE(parse_properties("a=\\u12zz").is_ok());
}

TEST(Properties, MissingFileFails) {
  auto r = load_properties_file("/nonexistent/server.properties");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("/nonexistent/server.properties"), std::string::npos);
}

}  // namespace
}  // namespace spool::config
