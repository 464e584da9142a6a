// `spool group` argument parsing: CLI11 wiring plus validate_group_args and
// the pure parsers behind it (topic:partition specs, ISO-8601 date-times).
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "cli/cli_args.h"
#include "cli/group_command.h"
#include "cli/group_parse.h"

namespace spool::cli {
namespace {

CliArgs parse(std::vector<std::string> words) {
  CLI::App app{"spool"};
  CliArgs args;
  configure_app(app, args);
  std::reverse(words.begin(), words.end());
  app.parse(words);
  return args;
}

// The CLI11 error message, or "" when parsing succeeded.
std::string parse_error(std::vector<std::string> words) {
  try {
    parse(std::move(words));
  } catch (const CLI::ParseError& e) {
    return std::string(e.what()) + " ";
  }
  return "";
}

TEST(GroupArgs, ListWithStatesCanonicalised) {
  auto a = parse({"group", "list", "--state", "stable,EMPTY", "--state", "preparingrebalance", "--bootstrap",
                  "h:1", "-o", "json"});
  EXPECT_EQ(a.command, "group");
  EXPECT_EQ(a.group.action, "list");
  EXPECT_EQ(a.group.states, (std::vector<std::string>{"Stable", "Empty", "PreparingRebalance"}));
  EXPECT_EQ(a.group.bootstrap_server, "h:1");
  EXPECT_EQ(a.group.output, OutputFormat::kJson);
  EXPECT_NE(parse_error({"group", "list", "--state", "Running"}).find("unknown group state"), std::string::npos);
}

TEST(GroupArgs, DescribeVariants) {
  auto a = parse({"group", "describe", "g1", "g2", "--bootstrap-server", "b:9"});
  EXPECT_EQ(a.group.action, "describe");
  EXPECT_EQ(a.group.groups, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_FALSE(a.group.members);
  a = parse({"group", "describe", "g", "--members", "--verbose"});
  EXPECT_TRUE(a.group.members);
  EXPECT_TRUE(a.group.verbose);
  a = parse({"group", "describe", "g", "--state"});
  EXPECT_TRUE(a.group.state);
  EXPECT_FALSE(parse_error({"group", "describe", "g", "--state", "--members"}).empty());
  EXPECT_FALSE(parse_error({"group", "describe", "g", "--verbose"}).empty());
  EXPECT_NE(parse_error({"group", "describe"}).find("--all-groups"), std::string::npos);
  EXPECT_FALSE(parse_error({"group", "describe", "g", "--all-groups"}).empty());
  a = parse({"group", "describe", "--all-groups", "--members"});
  EXPECT_TRUE(a.group.all_groups);
  EXPECT_TRUE(a.group.groups.empty());
}

TEST(GroupArgs, ResetOffsetsSpecs) {
  auto a = parse({"group", "reset-offsets", "g", "--topic", "t:0,1", "--topic", "u", "--to-earliest"});
  EXPECT_EQ(a.group.action, "reset-offsets");
  EXPECT_EQ(a.group.groups, std::vector<std::string>{"g"});
  EXPECT_EQ(a.group.topics, (std::vector<std::string>{"t:0,1", "u"}));
  EXPECT_TRUE(a.group.to_earliest);
  EXPECT_FALSE(a.group.execute);
  EXPECT_EQ(reset_spec_of(a.group).kind, ResetKind::kEarliest);

  a = parse({"group", "reset-offsets", "g", "--all-topics", "--shift-by", "-5", "--execute"});
  ASSERT_TRUE(a.group.shift_by.has_value());
  EXPECT_EQ(*a.group.shift_by, -5);
  EXPECT_TRUE(a.group.execute);
  EXPECT_EQ(reset_spec_of(a.group).kind, ResetKind::kShiftBy);
  EXPECT_EQ(reset_spec_of(a.group).value, -5);

  a = parse({"group", "reset-offsets", "g", "--all-topics", "--to-datetime", "2024-01-02T03:04:05.006Z"});
  EXPECT_EQ(reset_spec_of(a.group).kind, ResetKind::kToDatetime);
  EXPECT_EQ(reset_spec_of(a.group).value, 1704164645006);

  a = parse({"group", "reset-offsets", "g", "--topic", "t", "--to-offset", "7", "--dry-run"});
  EXPECT_EQ(reset_spec_of(a.group).kind, ResetKind::kToOffset);
  EXPECT_EQ(reset_spec_of(a.group).value, 7);
}

TEST(GroupArgs, ResetOffsetsRejectsBadCombinations) {
  // No spec, two specs.
  EXPECT_NE(parse_error({"group", "reset-offsets", "g", "--topic", "t"}).find("reset spec is required"),
            std::string::npos);
  EXPECT_NE(parse_error({"group", "reset-offsets", "g", "--topic", "t", "--to-earliest", "--to-latest"})
                .find("only one reset spec"),
            std::string::npos);
  EXPECT_NE(parse_error({"group", "reset-offsets", "g", "--topic", "t", "--to-offset", "3", "--shift-by", "1"})
                .find("only one reset spec"),
            std::string::npos);
  // Scope: neither or both of --topic / --all-topics.
  EXPECT_NE(parse_error({"group", "reset-offsets", "g", "--to-latest"}).find("--all-topics"), std::string::npos);
  EXPECT_NE(parse_error({"group", "reset-offsets", "g", "--topic", "t", "--all-topics", "--to-latest"})
                .find("--all-topics"),
            std::string::npos);
  // Bad values.
  EXPECT_NE(parse_error({"group", "reset-offsets", "g", "--topic", "t", "--to-datetime", "yesterday"})
                .find("bad date-time 'yesterday'"),
            std::string::npos);
  EXPECT_NE(parse_error({"group", "reset-offsets", "g", "--topic", "t:x", "--to-latest"}).find("bad partition 'x'"),
            std::string::npos);
  EXPECT_NE(parse_error({"group", "reset-offsets", "g", "--topic", "t:", "--to-latest"}).find("no partitions"),
            std::string::npos);
  EXPECT_NE(parse_error({"group", "reset-offsets", "g", "--topic", "t", "--to-offset", "-1"}).find(">= 0"),
            std::string::npos);
  EXPECT_FALSE(parse_error({"group", "reset-offsets", "g", "--topic", "t", "--to-offset", "abc"}).empty());
  EXPECT_FALSE(parse_error({"group", "reset-offsets", "g", "--topic", "t", "--to-latest", "--execute", "--dry-run"})
                   .empty());
  EXPECT_FALSE(parse_error({"group", "reset-offsets", "--topic", "t", "--to-latest"}).empty());  // no group
  EXPECT_FALSE(parse_error({"group", "reset-offsets", "g", "h", "--topic", "t", "--to-latest"}).empty());
}

TEST(GroupArgs, DeleteAndDeleteOffsets) {
  auto a = parse({"group", "delete", "a", "b"});
  EXPECT_EQ(a.group.action, "delete");
  EXPECT_EQ(a.group.groups, (std::vector<std::string>{"a", "b"}));
  a = parse({"group", "delete-offsets", "g", "--topic", "t:2"});
  EXPECT_EQ(a.group.action, "delete-offsets");
  EXPECT_EQ(a.group.topics, std::vector<std::string>{"t:2"});
  EXPECT_FALSE(parse_error({"group", "delete-offsets", "g"}).empty());
  EXPECT_FALSE(parse_error({"group", "delete-offsets", "g", "--topic", "t:1,,2"}).empty());
  EXPECT_FALSE(parse_error({"group", "delete"}).empty());
  EXPECT_FALSE(parse_error({"group"}).empty());
  EXPECT_FALSE(parse_error({"group", "frobnicate"}).empty());
}

TEST(GroupArgs, RunnerRefusesBadArgsWithoutConnecting) {
  // Called directly (not through CLI11), the runner still validates first:
  // exit 2 and a message, no connection attempt to the unroutable address.
  GroupArgs a;
  a.action = "reset-offsets";
  a.groups = {"g"};
  a.topics = {"t"};
  a.bootstrap_server = "192.0.2.1:9";
  std::ostringstream out, err;
  EXPECT_EQ(run_group_command(a, out, err), kExitUsage);
  EXPECT_NE(err.str().find("reset spec is required"), std::string::npos);
  EXPECT_TRUE(out.str().empty());
  a.to_latest = true;
  a.bootstrap_server = "host:notaport";
  err.str("");
  EXPECT_EQ(run_group_command(a, out, err), kExitUsage);
  EXPECT_NE(err.str().find("--bootstrap-server"), std::string::npos);
}

TEST(TopicPartitionSpec, Parses) {
  auto s = parse_topic_partitions("orders");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->topic, "orders");
  EXPECT_TRUE(s->partitions.empty());
  s = parse_topic_partitions("a.b_c-d:3,1,3,0");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->topic, "a.b_c-d");
  EXPECT_EQ(s->partitions, (std::vector<int32_t>{0, 1, 3}));
}

TEST(TopicPartitionSpec, RejectsBadInput) {
  for (const char* bad : {"", ":1", "t:", "t:1,", "t:,1", "t:-1", "t:1.5", "t:a", "t:99999999999", "bad topic",
                          "t/x:1", "t:1:2", ".."}) {
    EXPECT_FALSE(parse_topic_partitions(bad)) << bad;
  }
  EXPECT_FALSE(parse_topic_partitions(std::string(250, 'x')));
  EXPECT_TRUE(parse_topic_partitions(std::string(249, 'x')));
  EXPECT_TRUE(parse_topic_partitions("t:2147483647"));
}

TEST(Iso8601, ParsesZonesAndFractions) {
  EXPECT_EQ(*parse_iso8601_ms("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*parse_iso8601_ms("1970-01-01T00:00:01.5Z"), 1500);
  EXPECT_EQ(*parse_iso8601_ms("1970-01-01T00:00:01.25z"), 1250);
  EXPECT_EQ(*parse_iso8601_ms("2024-02-29T12:00:00.123Z"), 1709208000123);
  EXPECT_EQ(*parse_iso8601_ms("2024-02-29T14:00:00.123+02:00"), 1709208000123);
  EXPECT_EQ(*parse_iso8601_ms("2024-02-29T10:30:00.123-0130"), 1709208000123);
  EXPECT_EQ(*parse_iso8601_ms("2024-02-29T13:00:00.123+01"), 1709208000123);
}

TEST(Iso8601, NoZoneIsLocalTime) {
  const char* old = std::getenv("TZ");
  std::string saved = old ? old : "";
  setenv("TZ", "UTC", 1);
  tzset();
  EXPECT_EQ(*parse_iso8601_ms("2024-02-29T12:00:00"), 1709208000000);
  setenv("TZ", "EST5", 1);  // fixed UTC-5, no DST rules
  tzset();
  EXPECT_EQ(*parse_iso8601_ms("2024-02-29T07:00:00.001"), 1709208000001);
  if (old) {
    setenv("TZ", saved.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
}

TEST(Iso8601, RejectsMalformed) {
  for (const char* bad : {"", "2024", "2024-01-01", "2024-01-01 00:00:00", "2024-1-01T00:00:00", "2024-13-01T00:00:00Z",
                          "2023-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z",
                          "2024-01-01T00:00:60Z", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00.1234Z",
                          "2024-01-01T00:00:00+25:00", "2024-01-01T00:00:00+01:7", "2024-01-01T00:00:00ZZ",
                          "2024-01-01T00:00:00 UTC", "1699999999999", "２０２４-01-01T00:00:00Z"}) {
    auto r = parse_iso8601_ms(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_NE(r.status().message().find("expected YYYY-MM-DDTHH:MM:SS"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace spool::cli
