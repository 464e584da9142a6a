// TopicRegistry::open: loading the topics from the metadata store and the
// one-time import of the old spool-metadata.json (topic_registry.h).
#include <spdlog/spdlog.h>

#include "broker/legacy_topic_file.h"
#include "broker/topic_name.h"
#include "broker/topic_registry.h"
#include "cluster/zk_data.h"
#include "cluster/zk_paths.h"

namespace spool::broker {
namespace zk_paths = cluster::zk_paths;

namespace {

Status store_failure(const std::string& what, const cluster::StoreError& e) {
  return Status::error("topic registry: " + what + " failed (" + cluster::store_code_name(e.code) +
                       "): " + e.message);
}

Status invalid_node(const std::string& why) {
  return Status::error("topic registry: invalid metadata store node " + why);
}

// One topic from its two nodes; errors start with the failing node's path.
Result<TopicInfo> read_topic(cluster::MetadataStore& store, const std::string& name) {
  const std::string topic_path = zk_paths::topic(name);
  if (!is_valid_topic_name(name)) return invalid_node(topic_path + ": " + topic_name_problem(name));
  auto node = store.get(topic_path);
  if (!node) return store_failure("reading " + topic_path, node.error());
  auto assignment = cluster::decode_topic_assignment(name, node->data);
  if (!assignment) return invalid_node(assignment.status().message());
  TopicInfo info;
  info.name = name;
  info.id = assignment->topic_id.value_or(TopicId{});
  const auto& parts = assignment->partitions;
  if (parts.empty()) return invalid_node(topic_path + ": no partitions");
  if (parts.begin()->first != 0 || parts.rbegin()->first != static_cast<int32_t>(parts.size()) - 1)
    return invalid_node(topic_path + ": partitions are not numbered 0.." + std::to_string(parts.size() - 1));
  info.partitions = static_cast<int32_t>(parts.size());

  const std::string config_path = zk_paths::config_topic(name);
  auto config = store.get(config_path);
  if (!config && config.code() != cluster::StoreCode::kNoNode)
    return store_failure("reading " + config_path, config.error());
  if (config) {
    auto overrides = cluster::decode_entity_config(config_path, config->data);
    if (!overrides) return invalid_node(overrides.status().message());
    info.configs = std::move(*overrides);
  }
  return info;
}

}  // namespace

Result<std::unique_ptr<TopicRegistry>> TopicRegistry::open(cluster::MetadataStore& store, int32_t broker_id,
                                                           const std::filesystem::path& legacy_dir) {
  auto reg = std::unique_ptr<TopicRegistry>(new TopicRegistry(store, broker_id));
  std::lock_guard lk(reg->mu_);
  if (Status s = reg->load_locked(); !s) return s;
  if (Status s = reg->import_legacy_locked(legacy_dir); !s) return s;
  return reg;
}

Status TopicRegistry::load_locked() {
  for (std::string_view parent : {zk_paths::kBrokerTopics, zk_paths::kConfigTopics}) {
    auto made = cluster::ensure_path(store_, std::string(parent));
    if (!made) return store_failure("creating " + std::string(parent), made.error());
  }
  auto names = store_.children(std::string(zk_paths::kBrokerTopics));
  if (!names) return store_failure("listing " + std::string(zk_paths::kBrokerTopics), names.error());
  for (const auto& name : *names) {
    auto info = read_topic(store_, name);
    if (!info) return info.status();
    insert_locked(std::move(*info));
  }
  return Status::ok();
}

Status TopicRegistry::import_legacy_locked(const std::filesystem::path& legacy_dir) {
  auto legacy = read_legacy_topic_file(legacy_dir);
  if (!legacy) return legacy.status();
  if (!legacy->has_value()) return Status::ok();
  const std::string file = (legacy_dir / kLegacyTopicFileName).string();
  const std::vector<TopicInfo>& old_topics = **legacy;
  if (topics_.empty()) {
    // All topics in one multi: the store holds either none or all of them.
    std::vector<cluster::Op> ops;
    for (const auto& t : old_topics)
      if (Status s = node_ops(ops, t.name, &t); !s) return s;
    if (Status s = apply_ops(ops, "importing " + file); !s) return s;
    for (const auto& t : old_topics) insert_locked(t);
    spdlog::info("imported {} topics from {} into the metadata store", old_topics.size(), file);
  } else {
    // The store has topics and the old file is still there: an import that
    // stopped before the rename, or an old Spool wrote the file since. Only
    // the first is safe to finish; anything else could drop a topic id.
    std::vector<TopicInfo> stored;
    for (const auto& [_, t] : topics_) stored.push_back(t);
    if (stored != old_topics)
      return Status::error("topic registry: both " + file + " and the metadata store hold topics, and they differ (" +
                           std::to_string(old_topics.size()) + " vs " + std::to_string(stored.size()) +
                           " topics); move one of them away to choose");
    spdlog::info("{}: its topics are already in the metadata store (an interrupted import); finishing it", file);
  }
  if (Status s = retire_legacy_topic_file(legacy_dir); !s)
    return Status::error("topic registry: imported " + file + " but cannot rename it: " + s.message());
  spdlog::info("renamed {} to {}{} (the metadata store now holds its topics)", file, file, kMigratedSuffix);
  return Status::ok();
}

}  // namespace spool::broker
