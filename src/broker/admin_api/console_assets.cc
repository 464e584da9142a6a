#include "broker/admin_api/console_assets.h"

#include <nlohmann/json.hpp>

namespace spool::broker {

namespace {
constexpr std::string_view kConsolePrefix = "/console/";
}  // namespace

const ConsoleAsset* find_console_asset(std::string_view name) {
  for (const ConsoleAsset& a : console_assets())
    if (a.name == name) return &a;
  return nullptr;
}

std::optional<http::HttpResponse> console_response(std::string_view path) {
  std::string_view name;
  if (path == "/") {
    name = "index.html";
  } else if (path.starts_with(kConsolePrefix)) {
    name = path.substr(kConsolePrefix.size());
  } else {
    return std::nullopt;
  }
  const ConsoleAsset* asset = find_console_asset(name);
  if (asset == nullptr) {
    // The name is echoed only through the JSON encoder (it escapes anything).
    return http::HttpResponse::json(404, nlohmann::json{{"error", "no such console file"}}.dump(2) + "\n");
  }
  http::HttpResponse r;
  r.status = 200;
  r.content_type = std::string(asset->content_type);
  r.body = std::string(asset->bytes);
  r.headers["Cache-Control"] = "no-cache";
  r.headers["X-Content-Type-Options"] = "nosniff";
  // Everything the console loads comes from this listener; no inline script.
  r.headers["Content-Security-Policy"] = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";
  return r;
}

}  // namespace spool::broker
