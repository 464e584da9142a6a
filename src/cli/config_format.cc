#include "cli/config_format.h"

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

namespace spool::cli {

namespace {

constexpr int8_t kBrokerLogger = 8;

bool dynamic_source(int8_t s) { return s == 2 || s == 3 || s == 6; }

std::string trim(const std::string& s) {
  const char* ws = " \t";
  auto b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

nlohmann::json nullable(const std::optional<std::string>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}  // namespace

ConfigEntity config_entity(const ConfigArgs& a) {
  if (a.broker_logger) return {kBrokerLogger, std::to_string(*a.broker_logger)};
  if (a.broker) return {4, std::to_string(*a.broker)};
  return {4, ""};
}

std::string entity_text(const ConfigEntity& e) {
  if (e.resource_type == kBrokerLogger) return "broker logger " + e.name;
  return e.name.empty() ? "the broker defaults" : "broker " + e.name;
}

std::string config_source_name(int8_t source) {
  switch (source) {
    case 1: return "DYNAMIC_TOPIC_CONFIG";
    case 2: return "DYNAMIC_BROKER_CONFIG";
    case 3: return "DYNAMIC_DEFAULT_BROKER_CONFIG";
    case 4: return "STATIC_BROKER_CONFIG";
    case 5: return "DEFAULT_CONFIG";
    case 6: return "DYNAMIC_BROKER_LOGGER_CONFIG";
    case 7: return "CLIENT_METRICS_CONFIG";
    case 8: return "GROUP_CONFIG";
    default: return "UNKNOWN";
  }
}

Result<std::vector<std::pair<std::string, std::string>>> parse_add_config(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  size_t i = 0;
  while (i < text.size()) {
    const size_t eq = text.find('=', i);
    if (eq == std::string::npos) return Status::error("--add-config: '" + text.substr(i) + "' is not key=value");
    std::string key = trim(text.substr(i, eq - i));
    if (key.empty() || key.find(',') != std::string::npos)
      return Status::error("--add-config: '" + text.substr(i, eq - i) + "' is not a config name");
    size_t pos = eq + 1;
    std::string value;
    if (pos < text.size() && text[pos] == '[') {
      const size_t close = text.find(']', pos);
      if (close == std::string::npos) return Status::error("--add-config: no ']' after " + key + "=[");
      value = text.substr(pos + 1, close - pos - 1);
      pos = close + 1;
      if (pos < text.size() && text[pos] != ',')
        return Status::error("--add-config: ',' expected after " + key + "=[" + value + "]");
    } else {
      const size_t comma = text.find(',', pos);
      value = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      pos = comma == std::string::npos ? text.size() : comma;
    }
    if (!seen.insert(key).second) return Status::error("--add-config: " + key + " is given twice");
    out.emplace_back(std::move(key), trim(value));
    i = pos < text.size() ? pos + 1 : pos;
  }
  if (out.empty()) return Status::error("--add-config: no key=value given");
  return out;
}

Result<std::vector<std::string>> parse_delete_config(const std::string& text) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::stringstream in(text);
  for (std::string key; std::getline(in, key, ',');) {
    key = trim(key);
    if (key.empty()) return Status::error("--delete-config: empty config name in '" + text + "'");
    if (!seen.insert(key).second) return Status::error("--delete-config: " + key + " is given twice");
    out.push_back(std::move(key));
  }
  if (out.empty()) return Status::error("--delete-config: no config name given");
  return out;
}

std::string format_config_describe(const ConfigEntity& e, const std::vector<DescribedConfig>& configs, bool all,
                                   OutputFormat output) {
  std::vector<const DescribedConfig*> shown;
  for (const auto& c : configs)
    if (all || dynamic_source(c.source)) shown.push_back(&c);
  if (output == OutputFormat::kJson) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto* c : shown) {
      nlohmann::json syns = nlohmann::json::array();
      for (const auto& s : c->synonyms)
        syns.push_back({{"name", s.name}, {"value", nullable(s.value)}, {"source", config_source_name(s.source)}});
      list.push_back({{"name", c->name},
                      {"value", nullable(c->value)},
                      {"source", config_source_name(c->source)},
                      {"read_only", c->read_only},
                      {"sensitive", c->sensitive},
                      {"synonyms", std::move(syns)}});
    }
    nlohmann::json doc = {{"entity", e.resource_type == kBrokerLogger ? "broker-logger" : "broker"},
                          {"name", e.name},
                          {"configs", std::move(list)}};
    return doc.dump(2) + "\n";
  }
  std::ostringstream out;
  if (e.resource_type == kBrokerLogger)
    out << "Loggers of broker " << e.name << " are:\n";
  else if (e.name.empty())
    out << "Default configs for brokers in the cluster are:\n";
  else
    out << (all ? "All" : "Dynamic") << " configs for broker " << e.name << " are:\n";
  for (const auto* c : shown) {
    out << "  " << c->name << "=" << (c->sensitive ? "null" : c->value.value_or("null"))
        << " sensitive=" << (c->sensitive ? "true" : "false") << " synonyms={";
    for (size_t i = 0; i < c->synonyms.size(); ++i) {
      const auto& s = c->synonyms[i];
      out << (i ? ", " : "") << config_source_name(s.source) << ":" << s.name << "="
          << (c->sensitive ? "null" : s.value.value_or("null"));
    }
    out << "}\n";
  }
  return out.str();
}

std::string format_config_altered(const ConfigEntity& e, OutputFormat output) {
  if (output == OutputFormat::kJson) {
    nlohmann::json doc = {{"entity", e.resource_type == kBrokerLogger ? "broker-logger" : "broker"},
                          {"name", e.name},
                          {"result", "updated"}};
    return doc.dump(2) + "\n";
  }
  if (e.resource_type == 4 && e.name.empty()) return "Completed updating default config for brokers in the cluster.\n";
  return "Completed updating config for " + entity_text(e) + ".\n";
}

}  // namespace spool::cli
