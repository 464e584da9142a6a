#include "config/throttled_replicas.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace spool::config {

namespace {

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool parse_id(std::string_view s, int32_t* out) {
  s = trim_spaces(s);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && *out >= 0;
}

// Splits "a,b,c" into trimmed items.
std::vector<std::string_view> items(std::string_view v) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    if (comma == std::string_view::npos) comma = v.size();
    out.push_back(trim_spaces(v.substr(start, comma - start)));
    start = comma + 1;
  }
  return out;
}

// "P:B" -> (P, B).
bool parse_item(std::string_view item, int32_t* p, int32_t* b) {
  size_t colon = item.find(':');
  return colon != std::string_view::npos && parse_id(item.substr(0, colon), p) && parse_id(item.substr(colon + 1), b);
}

}  // namespace

bool ThrottledPartitions::contains(int32_t p) const {
  return all || std::find(partitions.begin(), partitions.end(), p) != partitions.end();
}

ThrottledPartitions throttled_partitions(const std::string& value, int32_t broker_id) {
  ThrottledPartitions out;
  std::string_view v = trim_spaces(value);
  if (v.empty()) return out;
  if (v == "*") {
    out.all = true;
    return out;
  }
  for (std::string_view item : items(v)) {
    int32_t p = 0, b = 0;
    if (!parse_item(item, &p, &b)) continue;  // validated on the way in (check_throttled_replicas)
    if (b == broker_id) out.partitions.push_back(p);
  }
  return out;
}

std::string check_throttled_replicas(const std::string& value) {
  std::string_view v = trim_spaces(value);
  if (v.empty() || v == "*") return "";
  for (std::string_view item : items(v)) {
    int32_t p = 0, b = 0;
    if (!parse_item(item, &p, &b))
      return "must be the wildcard (*) or a list in the form PartitionId:BrokerId,PartitionId:BrokerId, got '" +
             value + "'";
  }
  return "";
}

}  // namespace spool::config
