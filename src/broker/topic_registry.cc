#include "broker/topic_registry.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "broker/topic_name.h"

namespace spool::broker {
namespace {

constexpr const char* kFileName = "spool-metadata.json";
constexpr int kFormatVersion = 1;

std::string id_to_hex(const TopicId& id) {
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (uint8_t b : id) {
    s += kHex[b >> 4];
    s += kHex[b & 15];
  }
  return s;
}

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

Status write_atomically(const std::filesystem::path& file, const std::string& text) {
  auto tmp = file;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::error("cannot write " + tmp.string());
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n <= 0) {
      ::close(fd);
      return Status::error("write failed: " + tmp.string());
    }
    off += static_cast<size_t>(n);
  }
  bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced) return Status::error("fsync failed: " + tmp.string());
  if (::rename(tmp.c_str(), file.c_str()) != 0) return Status::error("rename failed: " + file.string());
  int dfd = ::open(file.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status::ok();
}

}  // namespace

TopicId random_topic_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  TopicId id;
  for (auto& b : id) b = static_cast<uint8_t>(rng());
  id[6] = (id[6] & 0x0f) | 0x40;  // UUID v4 shape
  id[8] = (id[8] & 0x3f) | 0x80;
  return id;
}

Result<std::unique_ptr<TopicRegistry>> TopicRegistry::open(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  auto reg = std::unique_ptr<TopicRegistry>(new TopicRegistry(dir / kFileName));
  std::ifstream in(reg->file_);
  if (!in) return reg;  // first start
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& why) {
    return Status::error("topic registry " + reg->file_.string() + " is invalid: " + why);
  };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"] != kFormatVersion)
    return bad("unsupported version");
  if (!j.contains("topics") || !j["topics"].is_array()) return bad("no topics array");
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
    if (info.id != TopicId{}) reg->names_by_id_[info.id] = info.name;  // zero: Kafka's "no id"
    reg->topics_[info.name] = std::move(info);
  }
  return reg;
}

std::vector<TopicInfo> TopicRegistry::list() const {
  std::lock_guard lk(mu_);
  std::vector<TopicInfo> out;
  out.reserve(topics_.size());
  for (const auto& [_, t] : topics_) out.push_back(t);
  return out;
}

std::optional<TopicInfo> TopicRegistry::get(const std::string& name) const {
  std::lock_guard lk(mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) return std::nullopt;
  return it->second;
}

std::optional<TopicInfo> TopicRegistry::get_by_id(const TopicId& id) const {
  std::lock_guard lk(mu_);
  auto n = names_by_id_.find(id);
  if (n == names_by_id_.end()) return std::nullopt;
  return topics_.at(n->second);
}

std::optional<std::string> TopicRegistry::name_of(const TopicId& id) const {
  std::lock_guard lk(mu_);
  auto n = names_by_id_.find(id);
  if (n == names_by_id_.end()) return std::nullopt;
  return n->second;
}

Result<TopicInfo> TopicRegistry::add(const std::string& name, int32_t partitions,
                                     std::map<std::string, std::string> configs) {
  return add_with_id(name, random_topic_id(), partitions, std::move(configs));
}

Result<TopicInfo> TopicRegistry::add_with_id(const std::string& name, const TopicId& id, int32_t partitions,
                                             std::map<std::string, std::string> configs) {
  std::lock_guard lk(mu_);
  if (topics_.count(name)) return Status::error("topic '" + name + "' already exists", 36);
  TopicInfo info{name, id, partitions, std::move(configs)};
  topics_[name] = info;
  names_by_id_[info.id] = name;
  Status s = save_locked();
  if (!s) {
    topics_.erase(name);
    names_by_id_.erase(info.id);
    return s;
  }
  return info;
}

Status TopicRegistry::remove(const std::string& name) {
  std::lock_guard lk(mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) return Status::error("unknown topic '" + name + "'", 3);
  TopicInfo saved = it->second;
  topics_.erase(it);
  names_by_id_.erase(saved.id);
  Status s = save_locked();
  if (!s) {
    names_by_id_[saved.id] = name;
    topics_[name] = std::move(saved);
  }
  return s;
}

Result<TopicInfo> TopicRegistry::set_partitions(const std::string& name, int32_t partitions) {
  std::lock_guard lk(mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) return Status::error("unknown topic '" + name + "'", 3);
  if (partitions <= it->second.partitions)
    return Status::error("topic '" + name + "' already has " + std::to_string(it->second.partitions) +
                             " partitions; the count can only grow",
                         37);
  int32_t old = it->second.partitions;
  it->second.partitions = partitions;
  Status s = save_locked();
  if (!s) {
    it->second.partitions = old;
    return s;
  }
  return it->second;
}

Result<TopicInfo> TopicRegistry::set_configs(const std::string& name, std::map<std::string, std::string> configs) {
  std::lock_guard lk(mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) return Status::error("unknown topic '" + name + "'", 3);
  std::swap(it->second.configs, configs);
  Status s = save_locked();
  if (!s) {
    std::swap(it->second.configs, configs);
    return s;
  }
  return it->second;
}

Status TopicRegistry::save_locked() const {
  nlohmann::json j;
  j["version"] = kFormatVersion;
  j["topics"] = nlohmann::json::array();
  for (const auto& [_, t] : topics_) {
    nlohmann::json e;
    e["name"] = t.name;
    e["id"] = id_to_hex(t.id);
    e["partitions"] = t.partitions;
    e["configs"] = t.configs;
    j["topics"].push_back(std::move(e));
  }
  return write_atomically(file_, j.dump(2) + "\n");
}

}  // namespace spool::broker
