// Parsing the values of Kafka client properties for the native clients'
// configs (producer_config.h, consumer_config.h), with the Java client's
// error text: "Invalid value V for configuration K: why".
// Pure functions; thread-safe.
#pragma once

#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "client/client_security.h"
#include "config/properties.h"
#include "util/status.h"

namespace spool::client {

inline Status invalid_value(const std::string& key, const std::string& value, const std::string& why) {
  return Status::error("Invalid value " + value + " for configuration " + key + ": " + why);
}

// A whole decimal number within [min, max] into `out`.
template <class T>
Status parse_int_value(const std::string& key, const std::string& value, T min, T max, T& out) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || p != value.data() + value.size()) return invalid_value(key, value, "not a number");
  if (v < static_cast<int64_t>(min) || v > static_cast<int64_t>(max)) {
    return invalid_value(key, value, "must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  out = static_cast<T>(v);
  return Status::ok();
}

inline Status parse_bool_value(const std::string& key, const std::string& value, bool& out) {
  if (value != "true" && value != "false") return invalid_value(key, value, "expected true or false");
  out = value == "true";
  return Status::ok();
}

// "a, b,c" -> {"a", "b", "c"} (blanks trimmed, empty items dropped).
std::vector<std::string> split_list_value(const std::string& s);

// security.protocol, ssl.* and sasl.*: read by client_security().
inline bool is_security_key(const std::string& k) {
  return k == "security.protocol" || k.rfind("ssl.", 0) == 0 || k.rfind("sasl.", 0) == 0;
}

// One property's setter: (key, value) -> ok or the error naming them.
using PropertySetter = std::function<Status(const std::string&, const std::string&)>;

// The properties as a map (a later duplicate key wins).
std::map<std::string, std::string> property_map(const config::PropertyList& props);

// Runs each property's setter. Security keys are left to client_security();
// keys in `ignored` are accepted silently (serializers and the like); any
// other key is a warning, as the Java client logs it. Stops at the first error.
Status apply_properties(const std::map<std::string, std::string>& props,
                        const std::map<std::string, PropertySetter>& setters, const std::set<std::string>& ignored,
                        std::vector<std::string>* warnings);

// What every native client needs after its own keys: bootstrap.servers set
// and each a host:port, and the security settings (client_security.h).
Status finish_common_config(const config::PropertyList& props, const std::vector<std::string>& bootstrap_servers,
                            ClientSecurity& security);

}  // namespace spool::client
