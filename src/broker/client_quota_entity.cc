#include "broker/client_quota_entity.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "protocol/error_code.h"

namespace spool::broker {
namespace {

bool unreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
         c == '_';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// One part of a path: "<default>" or a sanitized name.
std::optional<QuotaEntityPart> part_of(std::string_view text) {
  if (text == kDefaultEntityName) return QuotaEntityPart{true, std::nullopt};
  auto name = desanitize_entity_name(text);
  if (!name || name->empty()) return std::nullopt;
  return QuotaEntityPart{true, std::move(*name)};
}

std::string text_of(const QuotaEntityPart& p) {
  return p.name ? sanitize_entity_name(*p.name) : std::string(kDefaultEntityName);
}

Status invalid(std::string message) {
  return Status::error(std::move(message), protocol::to_int(protocol::ErrorCode::kInvalidRequest));
}

}  // namespace

std::string sanitize_entity_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (unsigned char c : name) {
    if (unreserved(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);  // Java's URLEncoder, with ' ' and '*' percent-encoded too
    }
  }
  return out;
}

std::optional<std::string> desanitize_entity_name(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size()) return std::nullopt;
      const int hi = hex_value(s[i + 1]);
      const int lo = hex_value(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(' ');  // URLDecoder's form of a space
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::string QuotaEntity::path() const {
  if (user.present && client_id.present) return "users/" + text_of(user) + "/clients/" + text_of(client_id);
  if (user.present) return "users/" + text_of(user);
  return "clients/" + text_of(client_id);
}

std::optional<QuotaEntity> QuotaEntity::from_path(std::string_view path) {
  auto take = [&path]() -> std::string_view {
    const size_t slash = path.find('/');
    std::string_view head = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
    return head;
  };
  const std::string_view type = take();
  if (path.empty()) return std::nullopt;
  QuotaEntity e;
  if (type == "clients") {
    auto c = part_of(take());
    if (!c || !path.empty()) return std::nullopt;
    e.client_id = *c;
    return e;
  }
  if (type != "users") return std::nullopt;
  auto u = part_of(take());
  if (!u) return std::nullopt;
  e.user = *u;
  if (path.empty()) return e;
  if (take() != "clients" || path.empty()) return std::nullopt;
  auto c = part_of(take());
  if (!c || !path.empty()) return std::nullopt;
  e.client_id = *c;
  return e;
}

std::optional<QuotaKind> quota_kind_of_key(std::string_view key) {
  if (key == "producer_byte_rate") return QuotaKind::kProduce;
  if (key == "consumer_byte_rate") return QuotaKind::kFetch;
  if (key == "request_percentage") return QuotaKind::kRequest;
  return std::nullopt;
}

std::string_view quota_key(QuotaKind kind) {
  switch (kind) {
    case QuotaKind::kProduce:
      return "producer_byte_rate";
    case QuotaKind::kFetch:
      return "consumer_byte_rate";
    case QuotaKind::kRequest:
      return "request_percentage";
  }
  return "";
}

std::optional<double> parse_quota_value(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return v;
}

Status validate_quota_value(std::string_view key, double value) {
  if (key == "controller_mutation_rate") {
    return invalid("controller_mutation_rate (KIP-599) is not enforced by Spool, so it cannot be set");
  }
  auto kind = quota_kind_of_key(key);
  if (!kind) return invalid(fmt::format("Invalid configuration key {}", key));
  if (!std::isfinite(value) || value <= 0) {
    return invalid(fmt::format("Invalid value {} for configuration key {}: a quota must be above 0", value, key));
  }
  if (*kind != QuotaKind::kRequest && (std::floor(value) != value || value > 9.2e18)) {
    return invalid(fmt::format("Invalid value {} for configuration key {}: a byte rate is a whole number", value, key));
  }
  return Status::ok();
}

}  // namespace spool::broker
