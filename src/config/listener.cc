#include "config/listener.h"

#include <set>

#include "config/config_def.h"

namespace spool::config {
namespace {

std::string upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

bool valid_host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '%' || c == ':';
}

bool is_known_protocol(std::string_view p) {
  return p == "PLAINTEXT" || p == "SSL" || p == "SASL_PLAINTEXT" || p == "SASL_SSL";
}

Status bad_entry(std::string_view key, std::string_view entry, const std::string& why) {
  return Status::error("invalid value for config '" + std::string(key) + "': '" + std::string(entry) + "' " + why +
                       " (expected NAME://host:port, e.g. PLAINTEXT://127.0.0.1:9092 or PLAINTEXT://:9092)");
}

}  // namespace

std::string listener_name(std::string_view s) { return upper(s); }

bool is_served_sasl_mechanism(std::string_view mechanism) {
  for (std::string_view m : kSaslMechanisms) {
    if (m == mechanism) return true;
  }
  return false;
}

bool is_sasl_protocol(std::string_view security_protocol) {
  return security_protocol == "SASL_PLAINTEXT" || security_protocol == "SASL_SSL";
}

std::string listener_key(std::string_view listener, std::string_view key) {
  return "listener.name." + lower(listener) + "." + std::string(key);
}

std::string sasl_jaas_key(std::string_view listener, std::string_view mechanism) {
  return listener_key(listener, lower(mechanism) + ".sasl.jaas.config");
}

bool is_tls_protocol(std::string_view security_protocol) {
  return security_protocol == "SSL" || security_protocol == "SASL_SSL";
}

bool is_acted_listener_key(std::string_view key, const std::vector<Listener>& listeners) {
  for (const Listener& l : listeners) {
    if (key == listener_key(l.name, "max.connection.creation.rate")) return true;
    if (is_tls_protocol(l.security_protocol)) {
      for (std::string_view k : kTlsListenerKeys) {
        if (key == listener_key(l.name, k)) return true;
      }
    }
    if (!is_sasl_protocol(l.security_protocol)) continue;
    if (key == listener_key(l.name, "sasl.enabled.mechanisms")) return true;
    for (std::string_view m : kSaslMechanisms) {
      if (key == sasl_jaas_key(l.name, m)) return true;
    }
  }
  return false;
}

std::string Listener::to_string() const {
  bool v6 = host.find(':') != std::string::npos;
  return name + "://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<std::map<std::string, std::string>> parse_security_protocol_map(std::string_view value) {
  std::map<std::string, std::string> out;
  for (const std::string& item : split_list(value)) {
    size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size()) {
      return Status::error("invalid value for config 'listener.security.protocol.map': '" + item +
                           "' (expected NAME:PROTOCOL)");
    }
    std::string name = listener_name(trim(std::string_view(item).substr(0, colon)));
    std::string proto = upper(trim(std::string_view(item).substr(colon + 1)));
    if (!is_known_protocol(proto)) {
      return Status::error("invalid value for config 'listener.security.protocol.map': unknown security protocol '" +
                           proto + "' (allowed: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)");
    }
    if (!out.emplace(name, proto).second) {
      return Status::error("invalid value for config 'listener.security.protocol.map': listener '" + name +
                           "' appears more than once");
    }
  }
  return out;
}

Result<std::vector<Listener>> parse_listeners(std::string_view value, std::string_view key,
                                              const std::map<std::string, std::string>& protocol_map,
                                              bool require_unique_ports) {
  std::vector<Listener> out;
  std::set<std::string> names;
  std::set<uint16_t> ports;
  for (const std::string& entry : split_list(value)) {
    size_t sep = entry.find("://");
    if (sep == std::string::npos || sep == 0) return bad_entry(key, entry, "has no listener name");
    Listener l;
    l.name = listener_name(entry.substr(0, sep));
    std::string_view rest = std::string_view(entry).substr(sep + 3);
    size_t colon = rest.rfind(':');
    if (colon == std::string_view::npos) return bad_entry(key, entry, "has no port");
    std::string_view host = rest.substr(0, colon);
    std::string_view port = rest.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    for (char c : host) {
      if (!valid_host_char(c)) return bad_entry(key, entry, "has an invalid host");
    }
    if (port.empty() || port.size() > 5) return bad_entry(key, entry, "has an invalid port");
    uint32_t p = 0;
    for (char c : port) {
      if (c < '0' || c > '9') return bad_entry(key, entry, "has an invalid port");
      p = p * 10 + static_cast<uint32_t>(c - '0');
    }
    if (p > 65535) return bad_entry(key, entry, "has a port outside 0..65535");
    l.host = std::string(host);
    l.port = static_cast<uint16_t>(p);
    auto proto = protocol_map.find(l.name);
    if (proto == protocol_map.end()) {
      return Status::error("invalid value for config '" + std::string(key) + "': listener name '" + l.name +
                           "' is not in listener.security.protocol.map");
    }
    l.security_protocol = proto->second;
    if (!names.insert(l.name).second) {
      return Status::error("invalid value for config '" + std::string(key) + "': listener name '" + l.name +
                           "' appears more than once");
    }
    if (require_unique_ports && l.port != 0 && !ports.insert(l.port).second) {
      return Status::error("invalid value for config '" + std::string(key) + "': port " + std::to_string(l.port) +
                           " is used by more than one listener");
    }
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace spool::config
