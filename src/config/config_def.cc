#include "config/config_def.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "config/kafka_version.h"
#include "config/host_counts.h"
#include "config/throttled_replicas.h"

namespace spool::config {
namespace {

bool parse_int64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 40) return false;
  std::string buf(s);
  if (buf[0] == '+') buf.erase(0, 1);
  if (buf.empty()) return false;
  for (size_t i = (buf[0] == '-') ? 1 : 0; i < buf.size(); ++i) {
    if (buf[i] < '0' || buf[i] > '9') return false;
  }
  if (buf == "-") return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(buf.c_str(), &end, 10);
  if (errno == ERANGE || end != buf.c_str() + buf.size()) return false;
  *out = v;
  return true;
}

bool parse_double(std::string_view s, double* out) {
  if (s.empty() || s.size() > 64) return false;
  std::string buf(s);
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(buf.c_str(), &end);
  if (errno == ERANGE || end != buf.c_str() + buf.size() || std::isnan(v)) return false;
  *out = v;
  return true;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

bool choice_matches(const char* choices, std::string_view v, bool nocase) {
  std::string_view all(choices);
  size_t start = 0;
  while (start <= all.size()) {
    size_t bar = all.find('|', start);
    std::string_view c = all.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
    if (nocase ? lower(c) == lower(v) : c == v) return true;
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return false;
}

std::string choices_text(const char* choices) {
  std::string out = "[";
  for (const char* p = choices; *p; ++p) out += (*p == '|') ? std::string(", ") : std::string(1, *p);
  return out + "]";
}

std::string range_text(int64_t lo, int64_t hi) {
  auto num = [](int64_t v) -> std::string {
    if (v == std::numeric_limits<int64_t>::max()) return "9223372036854775807";
    return std::to_string(v);
  };
  return "[" + num(lo) + ", " + num(hi) + "]";
}

// The natural bounds of Kafka's integer types, intersected with the check.
void type_bounds(ConfigType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ConfigType::kShort: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case ConfigType::kInt: *lo = INT32_MIN; *hi = INT32_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
  }
}

// "an int", "a long": the indefinite article for a type name.
std::string a_type(std::string_view t) {
  bool vowel = !t.empty() && std::string_view("aeiou").find(t[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(t);
}

Status bad(const KeyDef& def, std::string_view raw, const std::string& why) {
  return Status::error("invalid value '" + std::string(raw) + "' for config '" + def.name + "': " + why +
                       " (allowed: " + describe_allowed(def) + ")");
}

}  // namespace

bool is_off_value(const KeyDef& def, std::string_view normalized) {
  const bool string_like = def.type == ConfigType::kString || def.type == ConfigType::kList ||
                           def.type == ConfigType::kPassword || def.type == ConfigType::kClass;
  if (string_like && normalized.empty()) return true;
  if (def.default_value == nullptr) return false;
  auto normalized_default = parse_value(def, def.default_value);
  return normalized_default.is_ok() && *normalized_default == normalized;
}

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n\f\v";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

std::string_view type_name(ConfigType t) {
  switch (t) {
    case ConfigType::kBoolean: return "boolean";
    case ConfigType::kShort: return "short";
    case ConfigType::kInt: return "int";
    case ConfigType::kLong: return "long";
    case ConfigType::kDouble: return "double";
    case ConfigType::kString: return "string";
    case ConfigType::kList: return "list";
    case ConfigType::kClass: return "class";
    case ConfigType::kPassword: return "password";
  }
  return "?";
}

std::string describe_allowed(const KeyDef& def) {
  std::string t(type_name(def.type));
  std::string at = a_type(t);
  const Check& c = def.check;
  int64_t lo, hi;
  type_bounds(def.type, &lo, &hi);
  switch (c.kind) {
    case CheckKind::kRange:
      return at + " in " + range_text(std::max(lo, c.lo), std::min(hi, c.hi));
    case CheckKind::kDoubleRange:
      return "a double in [" + std::to_string(c.dlo) + ", " + std::to_string(c.dhi) + "]";
    case CheckKind::kOneOf:
      return "one of " + choices_text(c.choices);
    case CheckKind::kOneOfNoCase:
      return "one of " + choices_text(c.choices) + " (any case)";
    case CheckKind::kListOf:
      return "a comma-separated list of " + choices_text(c.choices);
    case CheckKind::kNonEmpty:
      return "a non-empty " + t;
    case CheckKind::kKafkaVersion:
      return "a Kafka version such as 2.8 or 2.7-IV1";
    case CheckKind::kThrottledReplicas:
      return "the wildcard (*) or a list in the form PartitionId:BrokerId,PartitionId:BrokerId";
    case CheckKind::kHostCounts:
      return "a list in the form host:count,host:count (count an int >= 0)";
    case CheckKind::kNone:
      break;
  }
  if (def.type == ConfigType::kShort || def.type == ConfigType::kInt || def.type == ConfigType::kLong)
    return at + " in " + range_text(lo, hi);
  if (def.type == ConfigType::kBoolean) return "true or false";
  if (def.type == ConfigType::kList) return "a comma-separated list";
  return at;
}

Result<std::string> parse_value(const KeyDef& def, std::string_view raw) {
  std::string_view v = trim(raw);
  const Check& c = def.check;
  switch (def.type) {
    case ConfigType::kBoolean: {
      std::string l = lower(v);
      if (l != "true" && l != "false") return bad(def, raw, "not a boolean");
      return l;
    }
    case ConfigType::kShort:
    case ConfigType::kInt:
    case ConfigType::kLong: {
      int64_t n = 0, lo, hi;
      type_bounds(def.type, &lo, &hi);
      if (!parse_int64(v, &n)) return bad(def, raw, "not " + a_type(type_name(def.type)));
      if (n < lo || n > hi) return bad(def, raw, "out of range");
      if (c.kind == CheckKind::kRange && (n < c.lo || n > c.hi)) return bad(def, raw, "out of range");
      return std::to_string(n);
    }
    case ConfigType::kDouble: {
      double d = 0;
      if (!parse_double(v, &d)) return bad(def, raw, "not a double");
      if (c.kind == CheckKind::kDoubleRange && (d < c.dlo || d > c.dhi)) return bad(def, raw, "out of range");
      return std::string(v);
    }
    case ConfigType::kList: {
      std::vector<std::string> items = split_list(v);
      std::string out;
      for (const auto& item : items) {
        if (c.kind == CheckKind::kListOf && !choice_matches(c.choices, item, false))
          return bad(def, raw, "'" + item + "' is not allowed");
        if (!out.empty()) out += ",";
        out += item;
      }
      if (c.kind == CheckKind::kNonEmpty && items.empty()) return bad(def, raw, "empty list");
      if (c.kind == CheckKind::kThrottledReplicas) {
        if (std::string why = check_throttled_replicas(out); !why.empty()) return bad(def, raw, why);
      }
      return out;
    }
    case ConfigType::kString:
    case ConfigType::kClass:
    case ConfigType::kPassword: {
      if (c.kind == CheckKind::kOneOf && !choice_matches(c.choices, v, false)) return bad(def, raw, "not allowed");
      if (c.kind == CheckKind::kOneOfNoCase && !choice_matches(c.choices, v, true)) return bad(def, raw, "not allowed");
      if (c.kind == CheckKind::kNonEmpty && v.empty()) return bad(def, raw, "empty");
      if (c.kind == CheckKind::kKafkaVersion && !parse_kafka_version(v)) return bad(def, raw, "not a Kafka version");
      if (c.kind == CheckKind::kHostCounts) {
        if (std::string why = check_host_counts(v); !why.empty()) return bad(def, raw, why);
      }
      if (def.type == ConfigType::kClass && v.empty()) return bad(def, raw, "empty class name");
      return std::string(v);
    }
  }
  return bad(def, raw, "unknown type");
}

int64_t to_int64(std::string_view s) {
  int64_t v = 0;
  parse_int64(trim(s), &v);
  return v;
}

double to_double(std::string_view s) {
  double d = 0;
  parse_double(trim(s), &d);
  return d;
}

bool to_bool(std::string_view s) { return lower(trim(s)) == "true"; }

std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  s = trim(s);
  if (s.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t comma = s.find(',', start);
    std::string_view item = trim(s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string closest_name(std::string_view key, const std::vector<std::string_view>& names) {
  // Levenshtein with one rolling row; names are short so this is cheap.
  auto distance = [](std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t prev = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t cur = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
        prev = cur;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t best_d = SIZE_MAX;
  for (std::string_view n : names) {
    size_t d = distance(key, n);
    if (d < best_d) { best_d = d; best = std::string(n); }
  }
  // Allow roughly one typo per four characters, at least two.
  size_t limit = std::max<size_t>(2, key.size() / 4);
  return best_d <= limit ? best : std::string();
}

const KeyDef* find_broker_key(std::string_view name) {
  static const std::unordered_map<std::string_view, const KeyDef*> index = [] {
    std::unordered_map<std::string_view, const KeyDef*> m;
    for (const KeyDef& d : broker_key_defs()) m.emplace(d.name, &d);
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

bool is_accepted_prefixed_key(std::string_view name) {
  // listener.name.<listener>.<config>: per-listener SSL/SASL/connection overrides,
  // including mechanism-scoped ones such as listener.name.x.plain.sasl.jaas.config.
  constexpr std::string_view kListener = "listener.name.";
  if (name.starts_with(kListener)) {
    std::string_view rest = name.substr(kListener.size());
    size_t dot = rest.find('.');
    return dot != std::string_view::npos && dot > 0 && dot + 1 < rest.size();
  }
  for (std::string_view p : {"rsm.config.", "rlmm.config.", "config.providers."}) {
    if (name.starts_with(p) && name.size() > p.size()) return true;
  }
  return false;
}

}  // namespace spool::config
