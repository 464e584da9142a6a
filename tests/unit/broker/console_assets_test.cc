// The web console's embedded files (broker/admin_api/console_assets.h): the
// files of console/ are all there with their content types, "/" is
// index.html, and nothing else answers, whatever the path looks like.
#include "broker/admin_api/console_assets.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace spool::broker {
namespace {

std::string read_source(const std::string& name) {
  std::ifstream in(std::string(SPOOL_CONSOLE_DIR) + "/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ConsoleAssets, EmbedsEveryConsoleFileByteForByte) {
  std::set<std::string> names;
  for (const ConsoleAsset& a : console_assets()) names.insert(std::string(a.name));
  EXPECT_EQ(names, (std::set<std::string>{"index.html", "console.js", "console.css"}));
  for (const ConsoleAsset& a : console_assets()) {
    const std::string source = read_source(std::string(a.name));
    ASSERT_FALSE(source.empty()) << a.name;
    EXPECT_EQ(a.bytes, source) << a.name << " differs from console/" << a.name;
  }
}

TEST(ConsoleAssets, ServesKnownFilesWithTheirContentTypes) {
  const std::pair<const char*, const char*> cases[] = {
      {"/", "text/html; charset=utf-8"},
      {"/console/index.html", "text/html; charset=utf-8"},
      {"/console/console.js", "text/javascript; charset=utf-8"},
      {"/console/console.css", "text/css; charset=utf-8"},
  };
  for (const auto& [path, type] : cases) {
    auto r = console_response(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_EQ(r->content_type, type) << path;
    EXPECT_FALSE(r->body.empty()) << path;
    EXPECT_EQ(r->headers["X-Content-Type-Options"], "nosniff") << path;
  }
  EXPECT_EQ(console_response("/")->body, console_response("/console/index.html")->body);
  EXPECT_NE(console_response("/")->body.find("<script src=\"/console/console.js\">"), std::string::npos);
}

TEST(ConsoleAssets, UnknownFilesAndEscapesAre404) {
  const std::string with_nul("/console/index.html\0.js", 23);
  const std::string not_found = console_response("/console/nope.js")->body;
  EXPECT_NE(not_found.find("no such console file"), std::string::npos);
  for (const std::string& path : {std::string("/console/"), std::string("/console/nope.js"),
                                 std::string("/console/../CMakeLists.txt"), std::string("/console/./index.html"),
                                 std::string("/console//index.html"), std::string("/console/%2e%2e/etc/passwd"),
                                 std::string("/console/index.html/"), std::string("/console/INDEX.HTML"),
                                 std::string("/console/embed_assets.py"), std::string("/console/sub/console.js"),
                                 with_nul}) {
    auto r = console_response(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
    EXPECT_EQ(r->content_type, "application/json") << path;
    EXPECT_EQ(r->body, not_found) << "the answer echoes nothing of " << path;
  }
  EXPECT_EQ(find_console_asset(""), nullptr);
  EXPECT_EQ(find_console_asset("../index.html"), nullptr);
}

TEST(ConsoleAssets, OtherPathsAreNotConsolePaths) {
  for (const char* path : {"/metrics", "/v1/topics", "/index.html", "/consoles/index.html", "/console", ""})
    EXPECT_FALSE(console_response(path)) << path;
}

}  // namespace
}  // namespace spool::broker
