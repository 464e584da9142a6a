// Admin's configuration from Kafka admin properties, and create().
#include <limits>

#include "client/admin/admin.h"
#include "client/network_client.h"

namespace spool::client {
namespace {

Result<int64_t> number(const std::string& key, const std::string& value, int64_t min, int64_t max) {
  try {
    size_t used = 0;
    long long v = std::stoll(value, &used);
    if (used == value.size() && v >= min && v <= max) return static_cast<int64_t>(v);
  } catch (const std::exception&) {
  }
  return Status::error("invalid value '" + value + "' for " + key + " (expected an integer in [" +
                       std::to_string(min) + ", " + std::to_string(max) + "])");
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    std::string item = s.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

}  // namespace

Result<AdminConfig> admin_config(const config::PropertyList& properties) {
  AdminConfig c;
  constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();
  bool connect_given = false;
  for (const auto& [key, value] : properties) {
    if (key == "bootstrap.servers") {
      c.bootstrap_servers = split_list(value);
    } else if (key == "client.id") {
      c.client_id = value;
    } else if (key == "request.timeout.ms" || key == "default.api.timeout.ms" ||
               key == "socket.connection.setup.timeout.ms") {
      auto v = number(key, value, 1, kMaxInt);
      if (!v) return v.status();
      if (key == "request.timeout.ms") c.request_timeout_ms = static_cast<int32_t>(*v);
      if (key == "default.api.timeout.ms") c.default_api_timeout_ms = static_cast<int32_t>(*v);
      if (key == "socket.connection.setup.timeout.ms") {
        c.connect_timeout_ms = static_cast<int32_t>(*v);
        connect_given = true;
      }
    } else if (key == "retry.backoff.ms") {
      auto v = number(key, value, 0, kMaxInt);
      if (!v) return v.status();
      c.retry_backoff_ms = *v;
    }
  }
  if (c.bootstrap_servers.empty()) return Status::error("bootstrap.servers is required");
  // A connect never outlasts the request it serves.
  if (!connect_given) c.connect_timeout_ms = std::min(c.connect_timeout_ms, c.request_timeout_ms);
  auto security = client_security(properties);
  if (!security) return security.status();
  c.security = std::make_shared<const ClientSecurity>(std::move(*security));
  return c;
}

Result<std::unique_ptr<Admin>> Admin::create(AdminConfig config) {
  if (config.bootstrap_servers.empty()) return Status::error("bootstrap.servers is required");
  NetworkClientOptions options;
  options.client_id = config.client_id;
  options.software_name = "spool-admin";
  options.request_timeout_ms = config.request_timeout_ms;
  options.connect_timeout_ms = config.connect_timeout_ms;
  options.security = config.security;
  auto network = std::make_unique<NetworkClient>(std::move(options));
  return std::unique_ptr<Admin>(new Admin(std::move(network), std::move(config)));
}

Result<std::unique_ptr<Admin>> Admin::create(const config::PropertyList& properties) {
  auto config = admin_config(properties);
  if (!config) return config.status();
  return create(std::move(*config));
}

}  // namespace spool::client
