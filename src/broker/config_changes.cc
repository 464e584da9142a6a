#include "broker/config_changes.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <utility>
#include <vector>

#include "cluster/zk_paths.h"

namespace spool::broker {

namespace zk_paths = cluster::zk_paths;

int64_t config_change_sequence(const std::string& child) {
  const std::string_view prefix = zk_paths::kConfigChangePrefix;
  if (child.size() <= prefix.size() || child.compare(0, prefix.size(), prefix) != 0) return -1;
  int64_t seq = -1;
  const char* first = child.data() + prefix.size();
  const char* last = child.data() + child.size();
  auto [end, ec] = std::from_chars(first, last, seq);
  if (ec != std::errc() || end != last || seq < 0) return -1;
  return seq;
}

ConfigChanges::ConfigChanges(cluster::MetadataStore& store, Handlers handlers, std::function<void()> wake)
    : store_(store), handlers_(std::move(handlers)), wake_(std::move(wake)) {}

cluster::StoreResult<int> ConfigChanges::poll() {
  auto wake = wake_;
  auto kids = store_.children(std::string(zk_paths::kConfigChanges),
                              [wake](cluster::WatchEvent e, const std::string&) {
                                if (e != cluster::WatchEvent::kSessionLost && wake) wake();
                              });
  if (!kids) return kids.error();
  std::vector<std::pair<int64_t, std::string>> pending;
  for (const auto& child : *kids) {
    int64_t seq = config_change_sequence(child);
    if (seq < 0) {
      spdlog::warn("config changes: ignoring unexpected node {}/{}", zk_paths::kConfigChanges, child);
      continue;
    }
    if (seq > last_) pending.emplace_back(seq, child);
  }
  std::sort(pending.begin(), pending.end());
  int applied = 0;
  for (const auto& [seq, child] : pending) {
    const std::string path = std::string(zk_paths::kConfigChanges) + "/" + child;
    auto node = store_.get(path);
    if (!node) {
      if (node.code() == cluster::StoreCode::kNoNode) {  // purged meanwhile
        last_ = seq;
        continue;
      }
      return node.error();
    }
    auto entity = cluster::decode_config_change(path, node->data);
    if (!entity) {
      spdlog::error("config changes: {} skipped: {}", path, entity.status().message());
      last_ = seq;
      continue;
    }
    // "topics/T", "brokers/<name>", "users/<u>[/clients/<c>]" or
    // "clients/<c>": the type, its handlers and the config node.
    const size_t slash = entity->find('/');
    const std::string type = slash == std::string::npos ? *entity : entity->substr(0, slash);
    const std::string name = slash == std::string::npos ? std::string() : entity->substr(slash + 1);
    const bool quota_entity = type == zk_paths::kEntityUsers || type == zk_paths::kEntityClients;
    const Apply* handler = type == zk_paths::kEntityTopics                                         ? &handlers_.topic
                           : type == zk_paths::kEntityBrokers                                      ? &handlers_.broker
                           : type == zk_paths::kEntityUsers && name.find('/') == std::string::npos ? &handlers_.user
                                                                                                   : nullptr;
    const bool handled = (handler != nullptr && *handler) || (quota_entity && handlers_.quota);
    if (!handled || name.empty()) {
      spdlog::debug("config changes: {} names {}: skipped", path, *entity);
      last_ = seq;
      continue;
    }
    const std::string config_path = zk_paths::config_entity(type, name);
    auto config = store_.get(config_path);
    cluster::EntityConfig values;
    if (config && !config->data.empty()) {  // no data: a parent of a deeper entity, no config
      auto decoded = cluster::decode_entity_config(config_path, config->data);
      if (!decoded) {
        spdlog::error("config changes: {} skipped: {}", config_path, decoded.status().message());
        last_ = seq;
        continue;
      }
      values = std::move(*decoded);
    } else if (!config && config.code() != cluster::StoreCode::kNoNode) {
      return config.error();
    }
    if (handler == &handlers_.topic)
      spdlog::info("config changes: topic '{}' overrides now {} key(s) ({})", name, values.size(), path);
    else if (handler == &handlers_.broker)
      spdlog::info("config changes: dynamic broker config '{}' now {} key(s) ({})", name, values.size(), path);
    else
      spdlog::info("config changes: {} now has {} config(s) ({})", *entity, values.size(), path);
    if (handler != nullptr && *handler) (*handler)(name, values);
    if (quota_entity && handlers_.quota) handlers_.quota(*entity, values);
    ++applied;
    last_ = seq;
  }
  return applied;
}

}  // namespace spool::broker
