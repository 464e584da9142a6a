#include "client/host_port.h"

#include <string>

namespace spool::client {

Result<std::pair<std::string, uint16_t>> parse_host_port(const std::string& s, uint16_t default_port) {
  std::string host = s;
  std::string port;
  bool has_port = false;
  if (!s.empty() && s[0] == '[') {
    size_t close = s.find(']');
    if (close == std::string::npos) return Status::error("invalid address '" + s + "' (unclosed '[')");
    host = s.substr(1, close - 1);
    if (close + 1 < s.size()) {
      if (s[close + 1] != ':') return Status::error("invalid address '" + s + "'");
      port = s.substr(close + 2);
      has_port = true;
    }
  } else if (size_t colon = s.find(':'); colon != std::string::npos && colon == s.rfind(':')) {
    host = s.substr(0, colon);
    port = s.substr(colon + 1);
    has_port = true;
  }  // several colons without brackets: a bare IPv6 address
  if (host.empty()) return Status::error("invalid address '" + s + "' (expected host:port)");
  if (!has_port) return std::make_pair(host, default_port);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) {
    return Status::error("invalid port in '" + s + "'");
  }
  int p = std::stoi(port);
  if (p < 1 || p > 65535) return Status::error("invalid port in '" + s + "' (allowed 1..65535)");
  return std::make_pair(host, static_cast<uint16_t>(p));
}

}  // namespace spool::client
