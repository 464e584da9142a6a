#include "cli/acl_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/admin_connect.h"
#include "cli/client_options.h"
#include "protocol/create_acls_request.h"
#include "protocol/create_acls_response.h"
#include "protocol/delete_acls_request.h"
#include "protocol/delete_acls_response.h"
#include "protocol/describe_acls_request.h"
#include "protocol/describe_acls_response.h"
#include "protocol/error_code.h"
#include "security/acl_filter.h"
#include "security/acl_text.h"

namespace spool::cli {

using client::Admin;
using protocol::ErrorCode;
using security::AclBinding;
using security::AclFilter;
using security::AclOperation;
using security::AclPermission;
using security::PatternType;
using security::ResourceType;

namespace {

std::string failure(ErrorCode code, const std::optional<std::string>& message) {
  std::string s(protocol::error_name(code));
  if (message && !message->empty()) s += ": " + *message;
  return s;
}

struct Resource {
  ResourceType type;
  std::string name;
};

std::vector<Resource> resources_of(const AclArgs& a) {
  std::vector<Resource> out;
  for (const auto& t : a.topics) out.push_back({ResourceType::kTopic, t});
  for (const auto& g : a.groups) out.push_back({ResourceType::kGroup, g});
  for (const auto& x : a.transactional_ids) out.push_back({ResourceType::kTransactionalId, x});
  if (a.cluster) out.push_back({ResourceType::kCluster, "kafka-cluster"});
  return out;
}

AclFilter resource_filter(ResourceType type, std::optional<std::string> name, PatternType pattern,
                          std::optional<std::string> principal = std::nullopt) {
  AclFilter f;
  f.resource_type = type;
  f.resource_name = std::move(name);
  f.pattern_type = pattern;
  f.principal = std::move(principal);
  return f;
}

// The bindings `add` creates, or the exact filters `remove` uses.
Result<std::vector<AclBinding>> bindings_of(const AclArgs& a, PatternType pattern) {
  std::vector<AclOperation> ops;
  for (const auto& o : a.operations) {
    auto op = security::parse_operation(o);
    if (!op || *op == AclOperation::kAny) return Status::error("unknown operation '" + o + "'");
    ops.push_back(*op);
  }
  if (ops.empty()) ops.push_back(AclOperation::kAll);
  std::vector<AclBinding> out;
  auto add = [&](const std::vector<std::string>& principals, const std::vector<std::string>& hosts,
                 AclPermission perm) {
    const std::vector<std::string> any_host{"*"};
    for (const Resource& r : resources_of(a))
      for (const auto& p : principals)
        for (const auto& h : hosts.empty() ? any_host : hosts)
          for (AclOperation op : ops) out.push_back({r.type, r.name, pattern, p, h, op, perm});
  };
  add(a.allow_principals, a.allow_hosts, AclPermission::kAllow);
  add(a.deny_principals, a.deny_hosts, AclPermission::kDeny);
  for (const AclBinding& b : out) {
    if (auto why = security::invalid_binding(b)) return Status::error(*why + " (" + security::describe(b) + ")");
  }
  return out;
}

void print_bindings(std::vector<AclBinding> v, OutputFormat format, std::ostream& out) {
  std::sort(v.begin(), v.end());
  if (format == OutputFormat::kJson) {
    nlohmann::json j = nlohmann::json::array();
    for (const AclBinding& b : v) {
      j.push_back({{"resource_type", security::enum_name(b.resource_type)}, {"name", b.resource_name},
                   {"pattern_type", security::enum_name(b.pattern_type)}, {"principal", b.principal},
                   {"host", b.host}, {"operation", security::enum_name(b.operation)},
                   {"permission", security::enum_name(b.permission)}});
    }
    out << j.dump(2) << "\n";
    return;
  }
  out << std::left << std::setw(18) << "RESOURCE_TYPE" << std::setw(24) << "NAME" << std::setw(10) << "PATTERN"
      << std::setw(24) << "PRINCIPAL" << std::setw(16) << "HOST" << std::setw(18) << "OPERATION" << "PERMISSION\n";
  for (const AclBinding& b : v) {
    out << std::left << std::setw(18) << security::enum_name(b.resource_type) << std::setw(24) << b.resource_name
        << std::setw(10) << security::enum_name(b.pattern_type) << std::setw(24) << b.principal << std::setw(16)
        << b.host << std::setw(18) << security::enum_name(b.operation) << security::enum_name(b.permission) << "\n";
  }
}

int run_add(const AclArgs& a, Admin& c, std::ostream& out, std::ostream& err) {
  auto pattern = security::parse_pattern_type(a.pattern_type.value_or("literal"));
  if (!pattern || (*pattern != PatternType::kLiteral && *pattern != PatternType::kPrefixed)) {
    err << "spool acl add: --resource-pattern-type must be literal or prefixed\n";
    return kExitUsage;
  }
  auto bindings = bindings_of(a, *pattern);
  if (!bindings || bindings->empty()) {
    err << "spool acl add: "
        << (bindings ? "name a resource and an --allow-principal or --deny-principal" : bindings.status().message())
        << "\n";
    return kExitUsage;
  }
  protocol::CreateAclsRequest req;
  for (const AclBinding& b : *bindings) {
    req.creations.push_back({static_cast<int8_t>(b.resource_type), b.resource_name, static_cast<int8_t>(b.pattern_type),
                             b.principal, b.host, static_cast<int8_t>(b.operation), static_cast<int8_t>(b.permission)});
  }
  auto resp = c.create_acls(req);
  if (!resp || resp->results.size() != bindings->size()) {
    err << "spool acl add: " << (resp ? "malformed answer" : resp.status().message()) << "\n";
    return kExitFailure;
  }
  int rc = kExitOk;
  for (size_t i = 0; i < bindings->size(); ++i) {
    const auto& r = resp->results[i];
    if (r.error_code != ErrorCode::kNone) {
      err << "spool acl add " << security::describe((*bindings)[i]) << ": " << failure(r.error_code, r.error_message)
          << "\n";
      rc = kExitFailure;
    } else {
      out << "Added " << security::describe((*bindings)[i]) << "\n";
    }
  }
  return rc;
}

template <typename Wire>
void fill_filter(Wire& w, const AclFilter& f) {
  w.resource_type_filter = static_cast<int8_t>(f.resource_type);
  w.resource_name_filter = f.resource_name;
  w.pattern_type_filter = static_cast<int8_t>(f.pattern_type);
  w.principal_filter = f.principal;
  w.host_filter = f.host;
  w.operation = static_cast<int8_t>(f.operation);
  w.permission_type = static_cast<int8_t>(f.permission);
}

int run_remove(const AclArgs& a, Admin& c, std::ostream& out, std::ostream& err) {
  auto pattern = security::parse_pattern_type(a.pattern_type.value_or("literal"));
  if (!pattern || (*pattern != PatternType::kLiteral && *pattern != PatternType::kPrefixed)) {
    err << "spool acl remove: --resource-pattern-type must be literal or prefixed\n";
    return kExitUsage;
  }
  std::vector<AclFilter> filters;
  if (a.allow_principals.empty() && a.deny_principals.empty()) {
    for (const Resource& r : resources_of(a)) filters.push_back(resource_filter(r.type, r.name, *pattern));
  } else {
    auto bindings = bindings_of(a, *pattern);
    if (!bindings) {
      err << "spool acl remove: " << bindings.status().message() << "\n";
      return kExitUsage;
    }
    for (const AclBinding& b : *bindings) {
      filters.push_back({b.resource_type, b.resource_name, b.pattern_type, b.principal, b.host,
                         a.operations.empty() ? AclOperation::kAny : b.operation, b.permission});
    }
  }
  if (filters.empty()) {
    err << "spool acl remove: name a resource (--topic, --group, --transactional-id or --cluster)\n";
    return kExitUsage;
  }
  protocol::DeleteAclsRequest req;
  for (const AclFilter& f : filters) fill_filter(req.filters.emplace_back(), f);
  auto resp = c.delete_acls(req);
  if (!resp || resp->filter_results.size() != filters.size()) {
    err << "spool acl remove: " << (resp ? "malformed answer" : resp.status().message()) << "\n";
    return kExitFailure;
  }
  int rc = kExitOk;
  std::vector<AclBinding> removed;
  for (const auto& r : resp->filter_results) {
    if (r.error_code != ErrorCode::kNone) {
      err << "spool acl remove: " << failure(r.error_code, r.error_message) << "\n";
      rc = kExitFailure;
    }
    for (const auto& m : r.matching_acls) {
      removed.push_back({static_cast<ResourceType>(m.resource_type), m.resource_name,
                         static_cast<PatternType>(m.pattern_type), m.principal, m.host,
                         static_cast<AclOperation>(m.operation), static_cast<AclPermission>(m.permission_type)});
    }
  }
  print_bindings(std::move(removed), a.output, out);
  return rc;
}

int run_list(const AclArgs& a, Admin& c, std::ostream& out, std::ostream& err) {
  auto pattern = security::parse_pattern_type(a.pattern_type.value_or("any"));
  if (!pattern) {
    err << "spool acl list: --resource-pattern-type must be any, match, literal or prefixed\n";
    return kExitUsage;
  }
  std::vector<AclFilter> filters;
  for (const Resource& r : resources_of(a)) filters.push_back(resource_filter(r.type, r.name, *pattern, a.principal));
  if (filters.empty()) filters.push_back(resource_filter(ResourceType::kAny, std::nullopt, *pattern, a.principal));
  std::set<AclBinding> found;
  for (const AclFilter& f : filters) {
    protocol::DescribeAclsRequest req;
    fill_filter(req, f);
    auto resp = c.describe_acls(req);
    if (!resp) {
      err << "spool acl list: " << resp.status().message() << "\n";
      return kExitFailure;
    }
    if (resp->error_code != ErrorCode::kNone) {
      err << "spool acl list: " << failure(resp->error_code, resp->error_message) << "\n";
      return kExitFailure;
    }
    for (const auto& r : resp->resources) {
      for (const auto& d : r.acls) {
        found.insert({static_cast<ResourceType>(r.resource_type), r.resource_name,
                      static_cast<PatternType>(r.pattern_type), d.principal, d.host,
                      static_cast<AclOperation>(d.operation), static_cast<AclPermission>(d.permission_type)});
      }
    }
  }
  print_bindings({found.begin(), found.end()}, a.output, out);
  return kExitOk;
}

}  // namespace

void configure_acl(CLI::App& app, CliArgs& args) {
  CLI::App* acl = app.add_subcommand("acl", "Manage ACLs (kafka-acls.sh)");
  acl->require_subcommand(1);
  AclArgs& a = args.acl;
  auto resources = [&a](CLI::App* sub) {
    sub->add_option("--topic", a.topics, "Topic (repeatable)")->allow_extra_args(false);
    sub->add_option("--group", a.groups, "Consumer group (repeatable)")->allow_extra_args(false);
    sub->add_option("--transactional-id", a.transactional_ids, "Transactional id (repeatable)")
        ->allow_extra_args(false);
    sub->add_flag("--cluster", a.cluster, "The cluster resource");
    sub->add_option("--resource-pattern-type", a.pattern_type,
                    "literal or prefixed (list: also any or match; default literal, list: any)");
  };
  auto entries = [&a](CLI::App* sub) {
    sub->add_option("--allow-principal", a.allow_principals, "Principal allowed, e.g. User:alice (repeatable)")
        ->allow_extra_args(false);
    sub->add_option("--deny-principal", a.deny_principals, "Principal denied (repeatable)")->allow_extra_args(false);
    sub->add_option("--allow-host", a.allow_hosts, "Host of the allowed principals (repeatable; default *)")
        ->allow_extra_args(false);
    sub->add_option("--deny-host", a.deny_hosts, "Host of the denied principals (repeatable; default *)")
        ->allow_extra_args(false);
    sub->add_option("--operation", a.operations,
                    "Read, Write, Create, Delete, Alter, Describe, ClusterAction, DescribeConfigs, AlterConfigs, "
                    "IdempotentWrite or All (repeatable)")
        ->allow_extra_args(false);
  };
  CLI::App* add = acl->add_subcommand("add", "Add ACLs (CreateAcls)");
  resources(add);
  entries(add);
  add_client_options(add, a);
  add->callback([&args] {
    args.command = "acl";
    args.acl.action = "add";
  });
  CLI::App* remove = acl->add_subcommand("remove", "Remove ACLs (DeleteAcls)");
  resources(remove);
  entries(remove);
  add_client_options(remove, a);
  remove->callback([&args] {
    args.command = "acl";
    args.acl.action = "remove";
  });
  CLI::App* list = acl->add_subcommand("list", "List ACLs (DescribeAcls)");
  resources(list);
  list->add_option("--principal", a.principal, "Only this principal's ACLs, e.g. User:alice");
  add_client_options(list, a);
  list->callback([&args] {
    args.command = "acl";
    args.acl.action = "list";
  });
}

int run_acl_command(const AclArgs& a) { return run_acl_command(a, std::cout, std::cerr); }

int run_acl_command(const AclArgs& a, std::ostream& out, std::ostream& err) {
  auto c = open_admin(a.bootstrap_server, a.timeout_ms);
  if (!c) {
    err << "spool acl: " << a.bootstrap_server << ": " << c.status().message() << "\n";
    return kExitFailure;
  }
  if (a.action == "add") return run_add(a, **c, out, err);
  if (a.action == "remove") return run_remove(a, **c, out, err);
  if (a.action == "list") return run_list(a, **c, out, err);
  err << "spool acl: unknown action '" << a.action << "'\n";
  return kExitUsage;
}

}  // namespace spool::cli
