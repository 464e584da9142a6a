// DescribeAcls, CreateAcls and DeleteAcls v1-3 (v2+ flexible), Kafka's
// ZooKeeper-mode answers:
//  * Without an authorizer (authorizer.class.name unset) every answer is
//    SECURITY_DISABLED ("No Authorizer is configured.").
//  * DescribeAcls needs DESCRIBE on the cluster, Create/DeleteAcls ALTER,
//    else CLUSTER_AUTHORIZATION_FAILED (per creation, per filter, or at top).
//  * DescribeAcls answers from the authorizer's snapshot, grouped by
//    resource pattern; a filter with an UNKNOWN field is INVALID_REQUEST.
//  * CreateAcls: a binding security::invalid_binding refuses answers
//    INVALID_REQUEST with the reason; the rest are written to the metadata
//    store (broker/acl_store.h) on the admin executor, in one pass, and the
//    authorizer reloaded; in a cluster the change is announced and every
//    broker reloads.
//  * DeleteAcls: per filter, the bindings it removed (each with NONE); an
//    invalid filter answers INVALID_REQUEST and removes nothing.
#include <map>
#include <optional>
#include <tuple>

#include <spdlog/spdlog.h>

#include "broker/acl_store.h"
#include "broker/handlers/admin_job.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "protocol/create_acls_request.h"
#include "protocol/create_acls_response.h"
#include "protocol/delete_acls_request.h"
#include "protocol/delete_acls_response.h"
#include "protocol/describe_acls_request.h"
#include "protocol/describe_acls_response.h"
#include "security/acl_text.h"

namespace spool::broker {

using protocol::ErrorCode;
using security::AclBinding;
using security::AclFilter;
using security::AclOperation;

namespace {

constexpr const char* kNoAuthorizer = "No Authorizer is configured.";
constexpr const char* kClusterRefused = "Cluster authorization failed.";

template <typename Wire>
AclFilter filter_of(const Wire& f) {
  AclFilter out;
  out.resource_type = static_cast<security::ResourceType>(f.resource_type_filter);
  out.resource_name = f.resource_name_filter;
  out.pattern_type = static_cast<security::PatternType>(f.pattern_type_filter);
  out.principal = f.principal_filter;
  out.host = f.host_filter;
  out.operation = static_cast<AclOperation>(f.operation);
  out.permission = static_cast<security::AclPermission>(f.permission_type);
  return out;
}

AclBinding binding_of(const protocol::CreateAclsRequest::AclCreation& c) {
  AclBinding b;
  b.resource_type = static_cast<security::ResourceType>(c.resource_type);
  b.resource_name = c.resource_name;
  b.pattern_type = static_cast<security::PatternType>(c.resource_pattern_type);
  b.principal = c.principal;
  b.host = c.host;
  b.operation = static_cast<AclOperation>(c.operation);
  b.permission = static_cast<security::AclPermission>(c.permission_type);
  return b;
}

// Sets every result (`slots` null) or those at `slots` to the error.
template <typename Results>
void set_error(Results& results, const std::vector<size_t>* slots, ErrorCode e, const std::string& message) {
  auto set = [&](auto& r) {
    r.error_code = e;
    r.error_message = message;
  };
  if (slots == nullptr) {
    for (auto& r : results) set(r);
  } else {
    for (size_t i : *slots) set(results[i]);
  }
}

// Why CreateAcls/DeleteAcls cannot run at all: no authorizer, or no ALTER
// on the cluster (the error and its message); nullopt when they can.
std::optional<std::pair<ErrorCode, const char*>> write_refusal(const BrokerContext& b, const RequestContext& ctx) {
  if (b.authorizer == nullptr || b.config_store == nullptr) return std::pair{ErrorCode::kSecurityDisabled, kNoAuthorizer};
  if (!cluster_allowed(b, ctx, AclOperation::kAlter)) return std::pair{ErrorCode::kClusterAuthorizationFailed, kClusterRefused};
  return std::nullopt;
}

// After a write: the authorizer mirrors the store again.
void reload(BrokerContext& b) {
  if (auto n = reload_acls(*b.config_store, *b.authorizer); !n) {
    spdlog::warn("ACLs: reloading after a change failed: {} {}; the next change notification retries",
                 cluster::store_code_name(n.code()), n.error().message);
  }
}

}  // namespace

void handle_describe_acls(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DescribeAclsRequest req;
  if (!decode_or_close(ctx, body, req, "DescribeAcls")) return;
  protocol::DescribeAclsResponse resp;
  auto fail = [&](ErrorCode e, std::string message) {
    resp.error_code = e;
    resp.error_message = std::move(message);
    ctx.respond(resp);
  };
  if (b.authorizer == nullptr) return fail(ErrorCode::kSecurityDisabled, kNoAuthorizer);
  if (!cluster_allowed(b, ctx, AclOperation::kDescribe)) {
    return fail(ErrorCode::kClusterAuthorizationFailed, kClusterRefused);
  }
  const AclFilter filter = filter_of(req);
  if (auto why = security::invalid_filter(filter)) return fail(ErrorCode::kInvalidRequest, *why);
  using Key = std::tuple<security::ResourceType, std::string, security::PatternType>;
  std::map<Key, size_t> index;  // resource pattern -> its entry in resp.resources
  for (const AclBinding& a : b.authorizer->bindings()) {
    if (!security::matches(filter, a)) continue;
    auto [it, added] = index.emplace(Key{a.resource_type, a.resource_name, a.pattern_type}, resp.resources.size());
    if (added) {
      auto& r = resp.resources.emplace_back();
      r.resource_type = static_cast<int8_t>(a.resource_type);
      r.resource_name = a.resource_name;
      r.pattern_type = static_cast<int8_t>(a.pattern_type);
    }
    auto& d = resp.resources[it->second].acls.emplace_back();
    d.principal = a.principal;
    d.host = a.host;
    d.operation = static_cast<int8_t>(a.operation);
    d.permission_type = static_cast<int8_t>(a.permission);
  }
  resp.error_code = ErrorCode::kNone;
  ctx.respond(resp, 64 + 64 * index.size());
}

void handle_create_acls(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::CreateAclsRequest req;
  if (!decode_or_close(ctx, body, req, "CreateAcls")) return;
  auto resp = std::make_shared<protocol::CreateAclsResponse>();
  resp->results.resize(req.creations.size());
  if (auto refused = write_refusal(b, ctx)) {
    set_error(resp->results, nullptr, refused->first, refused->second);
    return ctx.respond(*resp);
  }
  std::vector<AclBinding> valid;
  std::vector<size_t> slots;  // valid[i] answers resp->results[slots[i]]
  for (size_t i = 0; i < req.creations.size(); ++i) {
    AclBinding binding = binding_of(req.creations[i]);
    if (auto why = security::invalid_binding(binding)) {
      resp->results[i].error_code = ErrorCode::kInvalidRequest;
      resp->results[i].error_message = "Invalid ACL creation: " + *why;
      continue;
    }
    resp->results[i].error_code = ErrorCode::kNone;
    valid.push_back(std::move(binding));
    slots.push_back(i);
  }
  if (valid.empty()) return ctx.respond(*resp);
  auto fail = [ctx, resp, slots](const Status& s) {
    set_error(resp->results, &slots, static_cast<ErrorCode>(s.kafka_code()), s.message());
    ctx.respond(*resp);
  };
  run_admin_job(
      b, "CreateAcls",
      [&b, ctx, resp, slots, valid = std::move(valid)] {
        auto results = create_acls(*b.config_store, valid, /*notify=*/b.cluster != nullptr);
        for (size_t i = 0; i < results.size(); ++i) {
          if (!results[i]) {
            spdlog::info("ACLs: {} added {}", ctx.principal, security::describe(valid[i]));
            continue;
          }
          resp->results[slots[i]].error_code = results[i]->code;
          resp->results[slots[i]].error_message = results[i]->message;
        }
        reload(b);
        ctx.respond(*resp);
      },
      fail);
}

void handle_delete_acls(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DeleteAclsRequest req;
  if (!decode_or_close(ctx, body, req, "DeleteAcls")) return;
  auto resp = std::make_shared<protocol::DeleteAclsResponse>();
  resp->filter_results.resize(req.filters.size());
  if (auto refused = write_refusal(b, ctx)) {
    set_error(resp->filter_results, nullptr, refused->first, refused->second);
    return ctx.respond(*resp);
  }
  std::vector<AclFilter> valid;
  std::vector<size_t> slots;
  for (size_t i = 0; i < req.filters.size(); ++i) {
    AclFilter filter = filter_of(req.filters[i]);
    if (auto why = security::invalid_filter(filter)) {
      resp->filter_results[i].error_code = ErrorCode::kInvalidRequest;
      resp->filter_results[i].error_message = *why;
      continue;
    }
    resp->filter_results[i].error_code = ErrorCode::kNone;
    valid.push_back(std::move(filter));
    slots.push_back(i);
  }
  if (valid.empty()) return ctx.respond(*resp);
  auto fail = [ctx, resp, slots](const Status& s) {
    set_error(resp->filter_results, &slots, static_cast<ErrorCode>(s.kafka_code()), s.message());
    ctx.respond(*resp);
  };
  run_admin_job(
      b, "DeleteAcls",
      [&b, ctx, resp, slots, valid = std::move(valid)] {
        auto results = delete_acls(*b.config_store, valid, /*notify=*/b.cluster != nullptr);
        for (size_t i = 0; i < results.size(); ++i) {
          auto& out = resp->filter_results[slots[i]];
          if (results[i].error) {
            out.error_code = results[i].error->code;
            out.error_message = results[i].error->message;
          }
          for (const AclBinding& a : results[i].removed) {
            spdlog::info("ACLs: {} removed {}", ctx.principal, security::describe(a));
            auto& m = out.matching_acls.emplace_back();
            m.error_code = ErrorCode::kNone;
            m.resource_type = static_cast<int8_t>(a.resource_type);
            m.resource_name = a.resource_name;
            m.pattern_type = static_cast<int8_t>(a.pattern_type);
            m.principal = a.principal;
            m.host = a.host;
            m.operation = static_cast<int8_t>(a.operation);
            m.permission_type = static_cast<int8_t>(a.permission);
          }
        }
        reload(b);
        ctx.respond(*resp);
      },
      fail);
}

}  // namespace spool::broker
