// Reader of the old spool-metadata.json (legacy_topic_file.h).
#include "broker/legacy_topic_file.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "broker/topic_name.h"
#include "storage/file_util.h"
#include "storage/fs.h"

namespace spool::broker {
namespace {

constexpr int kFormatVersion = 1;

bool hex_to_id(const std::string& s, TopicId& id) {
  if (s.size() != 32) return false;
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < 16; ++i) {
    int hi = nib(s[2 * i]), lo = nib(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    id[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

}  // namespace

Result<std::optional<std::vector<TopicInfo>>> read_legacy_topic_file(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kLegacyTopicFileName;
  std::ifstream in(file);
  if (!in) return std::optional<std::vector<TopicInfo>>{};
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& why) {
    return Status::error("topic registry " + file.string() + " is invalid: " + why);
  };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"] != kFormatVersion)
    return bad("unsupported version");
  if (!j.contains("topics") || !j["topics"].is_array()) return bad("no topics array");
  std::map<std::string, TopicInfo> topics;
  for (const auto& t : j["topics"]) {
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string() || !t.contains("id") ||
        !t["id"].is_string() || !t.contains("partitions") || !t["partitions"].is_number_integer())
      return bad("malformed topic entry");
    TopicInfo info;
    info.name = t["name"].get<std::string>();
    if (!is_valid_topic_name(info.name)) return bad("bad topic name '" + info.name + "'");
    if (!hex_to_id(t["id"].get<std::string>(), info.id)) return bad("bad topic id for " + info.name);
    int64_t parts = t["partitions"].get<int64_t>();
    if (parts <= 0 || parts > 1000000) return bad("bad partition count for " + info.name);
    info.partitions = static_cast<int32_t>(parts);
    if (t.contains("configs")) {
      if (!t["configs"].is_object()) return bad("bad configs for " + info.name);
      for (auto it = t["configs"].begin(); it != t["configs"].end(); ++it) {
        if (!it.value().is_string()) return bad("bad config value for " + info.name);
        info.configs[it.key()] = it.value().get<std::string>();
      }
    }
    if (topics.count(info.name)) return bad("topic " + info.name + " listed twice");
    topics[info.name] = std::move(info);
  }
  std::vector<TopicInfo> out;
  out.reserve(topics.size());
  for (auto& [_, t] : topics) out.push_back(std::move(t));
  return std::optional<std::vector<TopicInfo>>(std::move(out));
}

Status retire_legacy_topic_file(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kLegacyTopicFileName;
  std::filesystem::path target = file;
  target += kMigratedSuffix;
  if (storage::fs().rename(file.c_str(), target.c_str()) != 0)
    return storage::errno_status("renaming " + file.string() + " to " + target.string());
  return storage::sync_dir(dir.string());
}

}  // namespace spool::broker
