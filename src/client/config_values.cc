#include "client/config_values.h"

#include "client/host_port.h"

namespace spool::client {

std::vector<std::string> split_list_value(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    const std::string item = s.substr(start, end - start);
    const auto b = item.find_first_not_of(" \t");
    const auto e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    start = end + 1;
  }
  return out;
}

std::map<std::string, std::string> property_map(const config::PropertyList& props) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : props) out[k] = v;
  return out;
}

Status apply_properties(const std::map<std::string, std::string>& props,
                        const std::map<std::string, PropertySetter>& setters, const std::set<std::string>& ignored,
                        std::vector<std::string>* warnings) {
  for (const auto& [k, v] : props) {
    if (auto it = setters.find(k); it != setters.end()) {
      if (Status s = it->second(k, v); !s) return s;
    } else if (!is_security_key(k) && ignored.count(k) == 0 && warnings != nullptr) {
      warnings->push_back("the configuration '" + k + "' was supplied but isn't a known config");
    }
  }
  return Status::ok();
}

Status finish_common_config(const config::PropertyList& props, const std::vector<std::string>& bootstrap_servers,
                            ClientSecurity& security) {
  if (bootstrap_servers.empty()) return Status::error("Missing required configuration bootstrap.servers");
  for (const std::string& s : bootstrap_servers) {
    if (!parse_host_port(s)) return Status::error("Invalid url in bootstrap.servers: " + s);
  }
  auto sec = client_security(props);
  if (!sec) return sec.status();
  security = std::move(*sec);
  return Status::ok();
}

}  // namespace spool::client
