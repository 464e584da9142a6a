#include "cluster/zk_paths.h"

#include <limits>

namespace spool::cluster::zk_paths {

namespace {

std::string join(std::string_view parent, std::string_view child) {
  std::string out;
  out.reserve(parent.size() + 1 + child.size());
  out.append(parent);
  out.push_back('/');
  out.append(child);
  return out;
}

// Canonical decimal: digits only, no sign, no leading zero (except "0").
std::optional<int64_t> parse_canonical(std::string_view s, int64_t max) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  if (s.size() > 1 && s[0] == '0') return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const int64_t d = c - '0';
    if (v > (max - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

}  // namespace

std::string broker_id(int32_t id) { return join(kBrokerIds, std::to_string(id)); }
std::string topic(std::string_view t) { return join(kBrokerTopics, t); }
std::string topic_partitions(std::string_view t) { return topic(t) + "/partitions"; }
std::string topic_partition(const TopicPartition& tp) {
  return join(topic_partitions(tp.topic), std::to_string(tp.partition));
}
std::string partition_state(const TopicPartition& tp) { return topic_partition(tp) + "/state"; }
std::string delete_topic(std::string_view t) { return join(kDeleteTopics, t); }
std::string config_entity(std::string_view type, std::string_view name) {
  return join(join(kConfig, type), name);
}
std::string config_topic(std::string_view t) { return join(kConfigTopics, t); }
std::string config_broker(int32_t id) { return join(kConfigBrokers, std::to_string(id)); }
std::string config_broker_default() { return join(kConfigBrokers, kDefaultBrokerEntity); }
std::string config_change_prefix() { return join(kConfigChanges, kConfigChangePrefix); }
std::string isr_change_prefix() { return join(kIsrChangeNotification, kIsrChangePrefix); }
std::string log_dir_event_prefix() { return join(kLogDirEventNotification, kLogDirEventPrefix); }
std::string acl_change_prefix(std::string_view changes) { return join(changes, kAclChangePrefix); }
std::string config_entity_path(std::string_view type, std::string_view name) {
  std::string out(type);
  out.push_back('/');
  out.append(name);
  return out;
}

std::vector<std::string> persistent_paths() {
  std::vector<std::string> out;
  for (std::string_view p : {kBrokerIds, kBrokerTopics, kConfigChanges, kDeleteTopics, kBrokerSeqId,
                             kIsrChangeNotification, kLatestProducerIdBlock, kLogDirEventNotification}) {
    out.emplace_back(p);
  }
  for (std::string_view type : {kEntityTopics, kEntityClients, kEntityUsers, kEntityBrokers, kEntityIps}) {
    out.push_back(join(kConfig, type));
  }
  return out;
}

std::optional<int32_t> parse_broker_id(std::string_view child) {
  auto v = parse_canonical(child, std::numeric_limits<int32_t>::max());
  if (!v) return std::nullopt;
  return static_cast<int32_t>(*v);
}

std::optional<int32_t> parse_partition_id(std::string_view child) { return parse_broker_id(child); }

std::optional<int64_t> sequence_number(std::string_view name_or_path, std::string_view prefix) {
  const size_t slash = name_or_path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? name_or_path : name_or_path.substr(slash + 1);
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view digits = name.substr(prefix.size());
  // ZooKeeper writes the counter zero-padded to 10 digits, so leading zeros are normal here.
  if (digits.empty() || digits.size() > 19) return std::nullopt;
  int64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    const int64_t d = c - '0';
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

}  // namespace spool::cluster::zk_paths
