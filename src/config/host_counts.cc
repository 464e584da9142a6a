#include "config/host_counts.h"

#include <cstdint>

namespace spool::config {
namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A decimal count in [0, INT32_MAX] (a leading '+' allowed, as Java's parseInt).
bool parse_count(std::string_view s, int64_t* out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.size() > 10) return false;
  int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  *out = n;
  return n <= INT32_MAX;
}

}  // namespace

Result<std::map<std::string, int>> parse_host_counts(std::string_view value) {
  std::map<std::string, int> out;
  if (trimmed(value).empty()) return out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string_view::npos) comma = value.size();
    std::string_view item = trimmed(value.substr(start, comma - start));
    start = comma + 1;
    size_t colon = item.rfind(':');
    if (colon == std::string_view::npos) {
      return Status::error("'" + std::string(item) + "' is not host:count");
    }
    std::string_view host = trimmed(item.substr(0, colon));
    std::string_view count = trimmed(item.substr(colon + 1));
    int64_t n = 0;
    if (host.empty()) return Status::error("'" + std::string(item) + "' has no host");
    if (!parse_count(count, &n)) {
      return Status::error("'" + std::string(item) + "': the count must be an int >= 0");
    }
    out[std::string(host)] = static_cast<int>(n);
  }
  return out;
}

std::string check_host_counts(std::string_view value) {
  auto parsed = parse_host_counts(value);
  return parsed ? "" : parsed.status().message();
}

}  // namespace spool::config
