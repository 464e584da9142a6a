#include "cluster/zk_data_json.h"

#include <algorithm>
#include <limits>
#include <set>

namespace spool::cluster::zkjson {

namespace {

const Json& empty_object() {
  static const Json kEmpty = Json::object();
  return kEmpty;
}

const Json& empty_array() {
  static const Json kEmpty = Json::array();
  return kEmpty;
}

// Nesting depth outside strings, stopping early past the limit.
bool deeper_than(std::string_view data, int limit) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : data) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limit) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

std::string quoted(std::string_view field) {
  std::string out = "field '";
  out.append(field);
  out.push_back('\'');
  return out;
}

}  // namespace

std::string dump(const OrderedJson& doc) {
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<Json> parse_object(std::string_view path, std::string_view data) {
  if (deeper_than(data, kMaxDepth)) {
    return Status::error(std::string(path) + ": JSON nested deeper than " + std::to_string(kMaxDepth) +
                         " levels");
  }
  // JSON text never holds a raw NUL, and nlohmann's lexer would stop at one
  // and accept whatever follows.
  if (data.find('\0') != std::string_view::npos) return Status::error(std::string(path) + ": not valid JSON");
  Json doc = Json::parse(data.begin(), data.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::error(std::string(path) + ": not valid JSON");
  if (!doc.is_object()) {
    return Status::error(std::string(path) + ": expected a JSON object, got " + doc.type_name());
  }
  return doc;
}

std::optional<int64_t> parse_decimal(std::string_view s, int64_t max) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  if (s.size() > 1 && s[0] == '0') return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const int64_t d = c - '0';
    if (v > (max - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

Status JsonReader::status() const { return ok() ? Status::ok() : Status::error(error_); }

void JsonReader::fail(std::string_view field, std::string_view what) {
  if (!ok()) return;
  error_ = path_ + ": " + quoted(field) + " " + std::string(what);
}

void JsonReader::fail_document(std::string_view what) {
  if (!ok()) return;
  error_ = path_ + ": " + std::string(what);
}

int32_t JsonReader::version(const Json& obj, std::initializer_list<int32_t> accepted) {
  const int64_t v = integer(obj, "version", std::numeric_limits<int32_t>::min(),
                            std::numeric_limits<int32_t>::max());
  if (!ok()) return 0;
  if (std::find(accepted.begin(), accepted.end(), v) == accepted.end()) {
    std::string list;
    for (int32_t a : accepted) list += (list.empty() ? "" : ", ") + std::to_string(a);
    fail("version", "is " + std::to_string(v) + ", supported: " + list);
    return 0;
  }
  return static_cast<int32_t>(v);
}

int64_t JsonReader::integer_value(const Json& v, std::string_view field, int64_t min, int64_t max) {
  if (!ok()) return 0;
  int64_t value = 0;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail(field, "is out of range");
      return 0;
    }
    value = static_cast<int64_t>(u);
  } else if (v.is_number_integer()) {
    value = v.get<int64_t>();
  } else {
    fail(field, std::string("must be an integer, got ") + (v.is_number_float() ? "a fraction" : v.type_name()));
    return 0;
  }
  if (value < min || value > max) {
    fail(field, "is " + std::to_string(value) + ", outside [" + std::to_string(min) + ", " + std::to_string(max) +
                    "]");
    return 0;
  }
  return value;
}

std::string JsonReader::string_value(const Json& v, std::string_view field) {
  if (!ok()) return {};
  if (!v.is_string()) {
    fail(field, std::string("must be a string, got ") + v.type_name());
    return {};
  }
  return v.get<std::string>();
}

namespace {
const Json* find_field(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string field_name(std::string_view context, std::string_view key) {
  std::string out(context);
  if (!out.empty()) out.push_back('.');
  out.append(key);
  return out;
}
}  // namespace

int64_t JsonReader::integer(const Json& obj, std::string_view key, int64_t min, int64_t max,
                            std::string_view context) {
  if (!ok()) return 0;
  const Json* v = find_field(obj, key);
  if (v == nullptr) {
    fail(field_name(context, key), "is missing");
    return 0;
  }
  return integer_value(*v, field_name(context, key), min, max);
}

std::string JsonReader::string(const Json& obj, std::string_view key, std::string_view context) {
  if (!ok()) return {};
  const Json* v = find_field(obj, key);
  if (v == nullptr) {
    fail(field_name(context, key), "is missing");
    return {};
  }
  return string_value(*v, field_name(context, key));
}

const Json& JsonReader::object(const Json& obj, std::string_view key, std::string_view context) {
  if (!ok()) return empty_object();
  const Json* v = find_field(obj, key);
  if (v == nullptr) {
    fail(field_name(context, key), "is missing");
    return empty_object();
  }
  if (!v->is_object()) {
    fail(field_name(context, key), std::string("must be an object, got ") + v->type_name());
    return empty_object();
  }
  return *v;
}

const Json& JsonReader::array(const Json& obj, std::string_view key, std::string_view context) {
  if (!ok()) return empty_array();
  const Json* v = find_field(obj, key);
  if (v == nullptr) {
    fail(field_name(context, key), "is missing");
    return empty_array();
  }
  if (!v->is_array()) {
    fail(field_name(context, key), std::string("must be an array, got ") + v->type_name());
    return empty_array();
  }
  return *v;
}

std::optional<int64_t> JsonReader::opt_integer(const Json& obj, std::string_view key, int64_t min, int64_t max,
                                               std::string_view context) {
  if (!ok()) return std::nullopt;
  const Json* v = find_field(obj, key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  const int64_t value = integer_value(*v, field_name(context, key), min, max);
  if (!ok()) return std::nullopt;
  return value;
}

std::optional<std::string> JsonReader::opt_string(const Json& obj, std::string_view key, std::string_view context) {
  if (!ok()) return std::nullopt;
  const Json* v = find_field(obj, key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  std::string value = string_value(*v, field_name(context, key));
  if (!ok()) return std::nullopt;
  return value;
}

const Json* JsonReader::opt_object(const Json& obj, std::string_view key, std::string_view context) {
  if (!ok()) return nullptr;
  const Json* v = find_field(obj, key);
  if (v == nullptr || v->is_null()) return nullptr;
  if (!v->is_object()) {
    fail(field_name(context, key), std::string("must be an object, got ") + v->type_name());
    return nullptr;
  }
  return v;
}

int64_t JsonReader::decimal_string(const Json& obj, std::string_view key, int64_t min, int64_t max,
                                   std::string_view context) {
  const std::string text = string(obj, key, context);
  if (!ok()) return 0;
  const std::string field = field_name(context, key);
  auto v = parse_decimal(text, std::numeric_limits<int64_t>::max());
  if (!v) {
    fail(field, "must be a decimal string, got \"" + text.substr(0, 32) + "\"");
    return 0;
  }
  if (*v < min || *v > max) {
    fail(field, "is " + std::to_string(*v) + ", outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return 0;
  }
  return *v;
}

std::vector<int32_t> JsonReader::broker_ids(const Json& v, std::string_view field, bool allow_empty) {
  std::vector<int32_t> out;
  if (!ok()) return out;
  if (!v.is_array()) {
    fail(field, std::string("must be an array of broker ids, got ") + v.type_name());
    return out;
  }
  if (v.empty() && !allow_empty) {
    fail(field, "must not be empty");
    return out;
  }
  std::set<int32_t> seen;
  out.reserve(v.size());
  for (const Json& e : v) {
    const int64_t id = integer_value(e, field, 0, std::numeric_limits<int32_t>::max());
    if (!ok()) return {};
    if (!seen.insert(static_cast<int32_t>(id)).second) {
      fail(field, "lists broker " + std::to_string(id) + " twice");
      return {};
    }
    out.push_back(static_cast<int32_t>(id));
  }
  return out;
}

}  // namespace spool::cluster::zkjson
