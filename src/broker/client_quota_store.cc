#include "broker/client_quota_store.h"

#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "broker/entity_config_store.h"
#include "cluster/zk_paths.h"
#include "protocol/error_code.h"

namespace spool::broker {
namespace {

using protocol::ErrorCode;
namespace zk_paths = cluster::zk_paths;

constexpr std::string_view kUserType = "user";
constexpr std::string_view kClientIdType = "client-id";
constexpr std::string_view kIpType = "ip";

std::string config_path(const QuotaEntity& e) { return std::string(zk_paths::kConfig) + "/" + e.path(); }

// Every entity node in the store with its path, parents before children.
Result<std::vector<std::pair<QuotaEntity, cluster::EntityConfig>>> all_entities(cluster::MetadataStore& store) {
  std::vector<std::pair<QuotaEntity, cluster::EntityConfig>> out;
  auto list = [&store](const std::string& path) -> Result<std::vector<std::string>> {
    auto kids = store.children(path);
    if (kids) return std::move(*kids);
    if (kids.code() == cluster::StoreCode::kNoNode) return std::vector<std::string>{};
    return Status::error(fmt::format("cannot list {}: {}", path, kids.error().message),
                         protocol::to_int(ErrorCode::kUnknownServerError));
  };
  auto add = [&](const std::string& relative) -> Status {
    auto entity = QuotaEntity::from_path(relative);
    if (!entity) {
      spdlog::warn("client quotas: ignoring /config/{}: not a quota entity", relative);
      return Status::ok();
    }
    auto stored = read_entity_config(store, config_path(*entity));
    if (!stored) return stored.status();
    out.emplace_back(std::move(*entity), std::move(stored->config));
    return Status::ok();
  };
  for (std::string_view type : {zk_paths::kEntityUsers, zk_paths::kEntityClients}) {
    const std::string base = std::string(zk_paths::kConfig) + "/" + std::string(type);
    auto names = list(base);
    if (!names) return names.status();
    for (const std::string& name : *names) {
      if (auto s = add(std::string(type) + "/" + name); !s) return s;
      if (type != zk_paths::kEntityUsers) continue;
      auto clients = list(base + "/" + name + "/clients");
      if (!clients) return clients.status();
      for (const std::string& client : *clients) {
        if (auto s = add(std::string(type) + "/" + name + "/clients/" + client); !s) return s;
      }
    }
  }
  return out;
}

bool has_quota(const cluster::EntityConfig& config) {
  for (const auto& [key, value] : config) {
    if (quota_kind_of_key(key)) return true;
  }
  return false;
}

// The entity a request names, or why it is not one Spool keeps.
Result<QuotaEntity> entity_of(const std::vector<protocol::AlterClientQuotasRequest::EntityData>& parts) {
  QuotaEntity e;
  auto fail = [](ErrorCode code, std::string message) {
    return Status::error(std::move(message), protocol::to_int(code));
  };
  for (const auto& p : parts) {
    QuotaEntityPart* slot = p.entity_type == kUserType       ? &e.user
                            : p.entity_type == kClientIdType ? &e.client_id
                                                             : nullptr;
    if (p.entity_type.empty()) return fail(ErrorCode::kInvalidRequest, "Unexpected empty quota entity type");
    if (p.entity_type == kIpType) {
      return fail(ErrorCode::kInvalidRequest,
                  "ip quotas (connection_creation_rate) are not supported by Spool; use max.connection.creation.rate");
    }
    if (slot == nullptr) {
      return fail(ErrorCode::kUnsupportedVersion, fmt::format("Custom entity type '{}' not supported", p.entity_type));
    }
    if (slot->present) {
      return fail(ErrorCode::kInvalidRequest, fmt::format("Duplicate {} found in entity", p.entity_type));
    }
    if (p.entity_name && p.entity_name->empty()) {
      return fail(ErrorCode::kInvalidRequest, fmt::format("Empty {} name in entity", p.entity_type));
    }
    *slot = QuotaEntityPart{true, p.entity_name};
  }
  if (!e.user.present && !e.client_id.present) return fail(ErrorCode::kInvalidRequest, "Invalid empty client quota entity");
  return e;
}

std::vector<protocol::DescribeClientQuotasResponse::EntityData> describe_entity(const QuotaEntity& e) {
  std::vector<protocol::DescribeClientQuotasResponse::EntityData> out;
  if (e.user.present) out.push_back({std::string(kUserType), e.user.name});
  if (e.client_id.present) out.push_back({std::string(kClientIdType), e.client_id.name});
  return out;
}

// How a stored value is written: byte rates as whole numbers, the
// percentage as Java prints a double ("200.0"), as Kafka stores them.
std::string stored_value(QuotaKind kind, double value) {
  if (kind != QuotaKind::kRequest) return fmt::format("{}", static_cast<int64_t>(std::llround(value)));
  if (std::floor(value) == value && std::fabs(value) < 1e15) return fmt::format("{:.1f}", value);
  return fmt::format("{}", value);
}

// One filter component, checked: the part of an entity it looks at and how.
struct Component {
  bool given = false;
  int8_t match_type = 2;
  std::optional<std::string> match;
};

bool matches(const Component& c, const QuotaEntityPart& part, bool strict) {
  if (!c.given) return !part.present || !strict;
  if (!part.present) return false;
  switch (c.match_type) {
    case 0:
      return part.name == c.match;
    case 1:
      return !part.name;
    default:
      return true;
  }
}

}  // namespace

void apply_client_quota(ClientQuotaManager& quotas, const std::string& entity_path, const cluster::EntityConfig& config) {
  auto entity = QuotaEntity::from_path(entity_path);
  if (!entity) {
    spdlog::warn("client quotas: ignoring a change of {}: not a quota entity", entity_path);
    return;
  }
  quotas.set_entity(*entity, config);
}

Status load_client_quotas(cluster::MetadataStore& store, ClientQuotaManager& quotas) {
  auto entities = all_entities(store);
  if (!entities) return entities.status();
  int n = 0;
  for (const auto& [entity, config] : *entities) {
    if (!has_quota(config)) continue;
    quotas.set_entity(entity, config);
    ++n;
  }
  if (n > 0) spdlog::info("client quotas: {} entit{} with quotas", n, n == 1 ? "y" : "ies");
  return Status::ok();
}

protocol::DescribeClientQuotasResponse describe_client_quotas(cluster::MetadataStore& store,
                                                              const protocol::DescribeClientQuotasRequest& req) {
  protocol::DescribeClientQuotasResponse resp;
  auto fail = [&resp](ErrorCode code, std::string message) {
    resp.error_code = code;
    resp.error_message = std::move(message);
    resp.entries.reset();
    return resp;
  };
  Component user, client;
  bool ip = false;
  for (const auto& c : req.components) {
    Component* slot = c.entity_type == kUserType ? &user : c.entity_type == kClientIdType ? &client : nullptr;
    if (c.entity_type.empty()) return fail(ErrorCode::kInvalidRequest, "Unexpected empty filter component entity type");
    if (c.entity_type == kIpType) {
      if (ip) return fail(ErrorCode::kInvalidRequest, "Duplicate ip filter component entity type");
      ip = true;
      continue;
    }
    if (slot == nullptr) {
      return fail(ErrorCode::kUnsupportedVersion, fmt::format("Custom entity type '{}' not supported", c.entity_type));
    }
    if (slot->given) {
      return fail(ErrorCode::kInvalidRequest, fmt::format("Duplicate {} filter component entity type", c.entity_type));
    }
    if (c.match_type < 0 || c.match_type > 2) {
      return fail(ErrorCode::kInvalidRequest, fmt::format("Unknown match type {}", c.match_type));
    }
    if (c.match_type == 0 && !c.match) return fail(ErrorCode::kInvalidRequest, "Exact match without a name");
    *slot = Component{true, c.match_type, c.match_type == 0 ? c.match : std::nullopt};
  }
  if (ip && (user.given || client.given)) {
    return fail(ErrorCode::kInvalidRequest,
                "Invalid entity filter component combination, IP filter component should not be used with user or "
                "clientId filter component.");
  }
  resp.entries.emplace();
  if (ip) return resp;  // Spool keeps no ip quotas
  auto entities = all_entities(store);
  if (!entities) return fail(ErrorCode::kUnknownServerError, entities.status().message());
  for (const auto& [entity, config] : *entities) {
    if (!matches(user, entity.user, req.strict) || !matches(client, entity.client_id, req.strict)) continue;
    protocol::DescribeClientQuotasResponse::EntryData entry;
    for (const auto& [key, text] : config) {
      auto v = quota_kind_of_key(key) ? parse_quota_value(text) : std::nullopt;
      if (v) entry.values.push_back({key, *v});
    }
    if (entry.values.empty()) continue;
    entry.entity = describe_entity(entity);
    resp.entries->push_back(std::move(entry));
  }
  return resp;
}

protocol::AlterClientQuotasResponse alter_client_quotas(cluster::MetadataStore& store, ClientQuotaManager& quotas,
                                                        const protocol::AlterClientQuotasRequest& req, bool notify) {
  protocol::AlterClientQuotasResponse resp;
  for (const auto& in : req.entries) {
    auto& out = resp.entries.emplace_back();
    for (const auto& p : in.entity) out.entity.push_back({p.entity_type, p.entity_name});
    auto failed = [&out](const Status& s) {
      out.error_code = static_cast<ErrorCode>(s.kafka_code());
      out.error_message = s.message();
    };
    auto entity = entity_of(in.entity);
    if (!entity) {
      failed(entity.status());
      continue;
    }
    // As Kafka 4: the ops act as a map (a repeated key: the last op wins);
    // a removal is not validated, and removes nothing but a quota key here
    // (a user node also holds SCRAM credentials).
    Status valid = Status::ok();
    for (const auto& op : in.ops) {
      if (!op.remove) valid = validate_quota_value(op.key, op.value);
      if (!valid) break;
    }
    if (!valid) {
      failed(valid);
      continue;
    }
    if (req.validate_only) continue;
    const std::string path = config_path(*entity);
    bool done = false;
    for (int attempt = 0; attempt < 10 && !done; ++attempt) {
      auto current = read_entity_config(store, path);
      if (!current) {
        failed(current.status());
        break;
      }
      cluster::EntityConfig config = current->config;
      for (const auto& op : in.ops) {
        if (op.remove) {
          if (quota_kind_of_key(op.key)) config.erase(op.key);
        } else {
          config[op.key] = stored_value(*quota_kind_of_key(op.key), op.value);
        }
      }
      auto wrote = write_entity_config(store, path, config, current->version, notify ? entity->path() : "");
      if (!wrote) {
        failed(wrote.status());
        break;
      }
      if (*wrote) {
        quotas.set_entity(*entity, config);
        done = true;
      }
    }
    if (!done && out.error_code == ErrorCode::kNone) {
      failed(Status::error("the entity's quotas kept changing under this request; retry",
                           protocol::to_int(ErrorCode::kUnknownServerError)));
    }
  }
  return resp;
}

}  // namespace spool::broker
