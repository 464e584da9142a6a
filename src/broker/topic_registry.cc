// TopicRegistry: lookups and writes (topic_registry.h); open() and the
// import of the old file are in topic_registry_open.cc.
#include "broker/topic_registry.h"

#include <random>

#include "cluster/zk_data.h"
#include "cluster/zk_paths.h"

namespace spool::broker {
namespace zk_paths = cluster::zk_paths;

namespace {

bool is_zero(const TopicId& id) { return id == TopicId{}; }

cluster::TopicAssignment assignment_of(const TopicInfo& info, int32_t broker_id) {
  cluster::TopicAssignment a;
  if (!is_zero(info.id)) a.topic_id = info.id;
  for (int32_t p = 0; p < info.partitions; ++p) a.partitions[p].replicas = {broker_id};
  return a;
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
  if (Status s = persist_locked(name, &info, nullptr); !s) return s;
  insert_locked(info);
  return info;
}

Status TopicRegistry::remove(const std::string& name) {
  std::lock_guard lk(mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) return Status::error("unknown topic '" + name + "'", 3);
  if (Status s = persist_locked(name, nullptr, &it->second); !s) return s;
  names_by_id_.erase(it->second.id);
  topics_.erase(it);
  return Status::ok();
}

Result<TopicInfo> TopicRegistry::set_partitions(const std::string& name, int32_t partitions) {
  std::lock_guard lk(mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) return Status::error("unknown topic '" + name + "'", 3);
  if (partitions <= it->second.partitions)
    return Status::error("topic '" + name + "' already has " + std::to_string(it->second.partitions) +
                             " partitions; the count can only grow",
                         37);
  TopicInfo grown = it->second;
  grown.partitions = partitions;
  if (Status s = persist_locked(name, &grown, &it->second); !s) return s;
  it->second = std::move(grown);
  return it->second;
}

Result<TopicInfo> TopicRegistry::set_configs(const std::string& name, std::map<std::string, std::string> configs) {
  std::lock_guard lk(mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) return Status::error("unknown topic '" + name + "'", 3);
  TopicInfo changed = it->second;
  changed.configs = std::move(configs);
  if (Status s = persist_locked(name, &changed, &it->second); !s) return s;
  it->second = std::move(changed);
  return it->second;
}

void TopicRegistry::insert_locked(TopicInfo info) {
  if (!is_zero(info.id)) names_by_id_[info.id] = info.name;  // zero: Kafka's "no id"
  topics_[info.name] = std::move(info);
}

Status TopicRegistry::node_ops(std::vector<cluster::Op>& ops, const std::string& name, const TopicInfo* info) const {
  const std::string config_path = zk_paths::config_topic(name);
  const std::string topic_path = zk_paths::topic(name);
  // Kafka's order: the config before the topic on create, after it on delete.
  const std::vector<std::pair<std::string, std::string>> nodes = {
      {config_path, info ? cluster::encode_entity_config(info->configs) : std::string()},
      {topic_path, info ? cluster::encode_topic_assignment(assignment_of(*info, broker_id_)) : std::string()}};
  auto add_op = [&](const std::string& path, const std::string& data) -> Status {
    auto present = store_.exists(path);
    if (!present && present.code() != cluster::StoreCode::kNoNode)
      return Status::error("metadata store: reading " + path + " failed: " + present.error().message);
    if (info) {
      ops.push_back(present ? cluster::Op::set_data(path, data) : cluster::Op::create(path, data));
    } else if (present) {
      ops.push_back(cluster::Op::remove(path));
    }
    return Status::ok();
  };
  if (info) {
    for (const auto& [path, data] : nodes)
      if (Status s = add_op(path, data); !s) return s;
  } else {
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
      if (Status s = add_op(it->first, it->second); !s) return s;
  }
  return Status::ok();
}

Status TopicRegistry::apply_ops(const std::vector<cluster::Op>& ops, const std::string& what) {
  if (ops.empty()) return Status::ok();
  auto r = store_.multi(ops);
  if (!r)
    return Status::error("metadata store: " + what + " failed (" + cluster::store_code_name(r.code()) +
                         "): " + r.error().message);
  return Status::ok();
}

Status TopicRegistry::persist_locked(const std::string& name, const TopicInfo* now, const TopicInfo* before) {
  std::vector<cluster::Op> ops;
  Status s = node_ops(ops, name, now);
  if (s) s = apply_ops(ops, "writing topic " + name);
  if (s) return s;
  // The write may be applied in the store's memory all the same (an
  // EmbeddedStore whose save failed): put the old state back.
  std::vector<cluster::Op> undo;
  if (node_ops(undo, name, before)) (void)apply_ops(undo, "restoring topic " + name);
  return s;
}

}  // namespace spool::broker
