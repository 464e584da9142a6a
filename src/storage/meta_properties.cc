// The log dirs' meta.properties check (meta_properties.h).
#include "storage/meta_properties.h"

#include <optional>

#include <spdlog/spdlog.h>

#include "storage/checkpoint.h"
#include "storage/file_util.h"

namespace spool::storage {
namespace {

std::string meta_path(const std::string& dir) { return dir + "/" + kMetaProperties; }

// nullopt for a missing or unreadable file (unreadable is logged: it gets rewritten).
std::optional<MetaProperties> load(const std::string& dir) {
  auto m = read_meta_properties(meta_path(dir));
  if (!m) {
    spdlog::warn("{}; rewriting it", m.status().message());
    return std::nullopt;
  }
  return *m;
}

struct Loaded {
  std::string dir;
  std::optional<MetaProperties> meta;
};

std::vector<Loaded> load_all(const std::vector<std::string>& log_dirs) {
  std::vector<Loaded> out;
  for (const auto& dir : log_dirs) out.push_back({dir, load(dir)});
  return out;
}

Result<std::string> agreed_cluster_id(const std::vector<Loaded>& dirs) {
  std::string id, from;
  for (const auto& [dir, m] : dirs) {
    if (!m || m->cluster_id.empty()) continue;
    if (id.empty()) {
      id = m->cluster_id;
      from = dir;
    } else if (m->cluster_id != id) {
      return Status::error("log dirs belong to different clusters: cluster.id " + id + " in " + meta_path(from) +
                               ", cluster.id " + m->cluster_id + " in " + meta_path(dir),
                           kStorageError);
    }
  }
  return id;
}

Result<std::string> check_loaded(const std::vector<Loaded>& dirs, const std::string& cluster_id, int32_t broker_id) {
  for (const auto& [dir, m] : dirs) {
    if (m && m->broker_id != broker_id)
      return Status::error(meta_path(dir) + ": stored broker.id " + std::to_string(m->broker_id) +
                               " does not match the configured broker.id " + std::to_string(broker_id) +
                               " (if this data was moved here, configure broker.id=" + std::to_string(m->broker_id) +
                               "; for a new broker, empty " + dir + ")",
                           kStorageError);
  }
  if (cluster_id.empty()) {
    auto stored = agreed_cluster_id(dirs);
    if (!stored) return stored;
    return stored->empty() ? random_id() : *stored;
  }
  for (const auto& [dir, m] : dirs) {
    if (m && !m->cluster_id.empty() && m->cluster_id != cluster_id)
      return Status::error(meta_path(dir) + ": stored cluster.id " + m->cluster_id +
                               " does not match this cluster's id " + cluster_id +
                               ": the log dir belongs to another cluster (check zookeeper.connect; to join this "
                               "cluster with an empty broker, empty " + dir + ")",
                           kStorageError);
  }
  return cluster_id;
}

}  // namespace

Result<std::string> stored_cluster_id(const std::vector<std::string>& log_dirs) {
  return agreed_cluster_id(load_all(log_dirs));
}

Result<std::string> check_meta_properties(const std::vector<std::string>& log_dirs, const std::string& cluster_id,
                                          int32_t broker_id) {
  return check_loaded(load_all(log_dirs), cluster_id, broker_id);
}

Result<std::string> ensure_meta_properties(const std::vector<std::string>& log_dirs, const std::string& cluster_id,
                                           int32_t broker_id) {
  auto dirs = load_all(log_dirs);
  auto id = check_loaded(dirs, cluster_id, broker_id);
  if (!id) return id;
  for (const auto& [dir, m] : dirs) {
    if (m && m->cluster_id == *id) continue;
    if (Status s = make_dirs(dir); !s) return s;
    if (Status s = write_meta_properties(meta_path(dir), {broker_id, *id}); !s) return s;
  }
  return id;
}

}  // namespace spool::storage
