#include "cli/quota_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/admin_connect.h"
#include "cli/client_options.h"
#include "config/config_def.h"
#include "protocol/alter_client_quotas_request.h"
#include "protocol/alter_client_quotas_response.h"
#include "protocol/describe_client_quotas_request.h"
#include "protocol/describe_client_quotas_response.h"
#include "protocol/error_code.h"

namespace spool::cli {

using client::Admin;
using protocol::ErrorCode;

namespace {

constexpr const char* kUser = "user";
constexpr const char* kClientId = "client-id";

std::string failure(ErrorCode code, const std::optional<std::string>& message) {
  std::string s(protocol::error_name(code));
  if (message && !message->empty()) s += ": " + *message;
  return s;
}

// "user=alice, client-id=<default>": how an entity is printed.
template <typename Part>
std::string entity_text(const std::vector<Part>& parts) {
  std::string s;
  for (const auto& p : parts) {
    s += (s.empty() ? "" : ", ") + p.entity_type + "=" + (p.entity_name ? *p.entity_name : "<default>");
  }
  return s;
}

int run_describe(const QuotaArgs& a, Admin& c, std::ostream& out, std::ostream& err) {
  protocol::DescribeClientQuotasRequest req;
  auto component = [&req](const char* type, const std::optional<std::string>& name, bool deflt) {
    if (name) req.components.push_back({type, 0, *name});
    if (deflt) req.components.push_back({type, 1, std::nullopt});
  };
  component(kUser, a.user, a.user_default);
  component(kClientId, a.client_id, a.client_id_default);
  req.strict = a.strict;
  auto resp = c.describe_client_quotas(req);
  if (!resp) {
    err << "spool quota describe: " << resp.status().message() << "\n";
    return kExitFailure;
  }
  if (resp->error_code != ErrorCode::kNone) {
    err << "spool quota describe: " << failure(resp->error_code, resp->error_message) << "\n";
    return kExitFailure;
  }
  std::vector<std::tuple<std::string, std::string, double>> rows;
  nlohmann::json j = nlohmann::json::array();
  for (const auto& e : resp->entries.value_or(decltype(resp->entries)::value_type{})) {
    nlohmann::json entity = nlohmann::json::object();
    for (const auto& p : e.entity) entity[p.entity_type] = p.entity_name ? nlohmann::json(*p.entity_name) : nullptr;
    nlohmann::json quotas = nlohmann::json::object();
    for (const auto& q : e.values) {
      quotas[q.key] = q.value;
      rows.emplace_back(entity_text(e.entity), q.key, q.value);
    }
    j.push_back({{"entity", entity}, {"quotas", quotas}});
  }
  std::sort(rows.begin(), rows.end());
  if (a.output == OutputFormat::kJson) {
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  out << std::left << std::setw(44) << "ENTITY" << std::setw(24) << "QUOTA" << "VALUE\n";
  for (const auto& [entity, key, value] : rows)
    out << std::left << std::setw(44) << entity << std::setw(24) << key << fmt::format("{}", value) << "\n";
  return kExitOk;
}

int run_alter(const QuotaArgs& a, Admin& c, std::ostream& out, std::ostream& err) {
  protocol::AlterClientQuotasRequest req;
  auto& e = req.entries.emplace_back();
  if (a.user || a.user_default) e.entity.push_back({kUser, a.user});
  if (a.client_id || a.client_id_default) e.entity.push_back({kClientId, a.client_id});
  if (e.entity.empty()) {
    err << "spool quota alter: name the entity: --user U or --user-default, and/or --client-id C or "
           "--client-id-default\n";
    return kExitUsage;
  }
  for (const std::string& item : config::split_list(a.add)) {
    const size_t eq = item.find('=');
    char* end = nullptr;
    const std::string text = eq == std::string::npos ? std::string() : item.substr(eq + 1);
    const double value = std::strtod(text.c_str(), &end);
    if (eq == std::string::npos || text.empty() || *end != '\0') {
      err << "spool quota alter: --add takes key=number pairs, not '" << item << "'\n";
      return kExitUsage;
    }
    e.ops.push_back({item.substr(0, eq), value, false});
  }
  for (const std::string& key : config::split_list(a.remove)) e.ops.push_back({key, 0.0, true});
  if (e.ops.empty()) {
    err << "spool quota alter: nothing to change: give --add and/or --delete\n";
    return kExitUsage;
  }
  req.validate_only = a.validate_only;
  auto resp = c.alter_client_quotas(req);
  if (!resp) {
    err << "spool quota alter: " << resp.status().message() << "\n";
    return kExitFailure;
  }
  if (resp->entries.size() != 1) {
    err << "spool quota alter: malformed answer\n";
    return kExitFailure;
  }
  const auto& r = resp->entries[0];
  if (r.error_code != ErrorCode::kNone) {
    err << "spool quota alter " << entity_text(e.entity) << ": " << failure(r.error_code, r.error_message) << "\n";
    return kExitFailure;
  }
  out << (a.validate_only ? "Validated" : "Altered") << " the quotas of " << entity_text(e.entity) << "\n";
  return kExitOk;
}

void add_entity_options(CLI::App* sub, QuotaArgs& q) {
  auto* user = sub->add_option("--user", q.user, "User (the principal's name)");
  auto* user_default = sub->add_flag("--user-default", q.user_default, "The default user");
  user->excludes(user_default);
  auto* client = sub->add_option("--client-id", q.client_id, "Client id");
  auto* client_default = sub->add_flag("--client-id-default", q.client_id_default, "The default client id");
  client->excludes(client_default);
}

}  // namespace

void configure_quota(CLI::App& app, CliArgs& args) {
  CLI::App* quota = app.add_subcommand("quota", "Manage client quotas (byte rates, request percentage)");
  quota->require_subcommand(1);
  QuotaArgs& q = args.quota;
  CLI::App* describe = quota->add_subcommand("describe", "Client quotas of the entities matching (none named: every one)");
  add_entity_options(describe, q);
  describe->add_flag("--strict", q.strict, "Only entities with exactly the parts named");
  add_client_options(describe, q);
  describe->callback([&args] {
    args.command = "quota";
    args.quota.action = "describe";
  });
  CLI::App* alter = quota->add_subcommand("alter", "Set or remove an entity's quotas");
  add_entity_options(alter, q);
  alter->add_option("--add", q.add, "key=value,... (producer_byte_rate, consumer_byte_rate, request_percentage)");
  alter->add_option("--delete", q.remove, "key,... to remove");
  alter->add_flag("--validate-only", q.validate_only, "Check the change without making it");
  add_client_options(alter, q);
  alter->callback([&args] {
    args.command = "quota";
    args.quota.action = "alter";
  });
}

int run_quota_command(const QuotaArgs& a) { return run_quota_command(a, std::cout, std::cerr); }

int run_quota_command(const QuotaArgs& a, std::ostream& out, std::ostream& err) {
  auto c = open_admin(a.bootstrap_server, a.timeout_ms);
  if (!c) {
    err << "spool quota: " << a.bootstrap_server << ": " << c.status().message() << "\n";
    return kExitFailure;
  }
  if (a.action == "describe") return run_describe(a, **c, out, err);
  if (a.action == "alter") return run_alter(a, **c, out, err);
  err << "spool quota: unknown action '" << a.action << "'\n";
  return kExitUsage;
}

}  // namespace spool::cli
