// The web console's static files, served by the admin listener (admin_api.h):
// console/index.html, console/console.js and console/console.css in the
// repository, embedded into the binary at build time. console/embed_assets.py
// writes <build>/generated/console/console_assets_data.cc (one byte array
// and content type per file; src/broker/CMakeLists.txt names the files), and
// that file defines console_assets() below.
//
// Paths: "/" is index.html; "/console/<name>" is the file <name>, matched
// exactly against the embedded names, so no path reaches anything else (no
// directories, no "..", no file system access at run time). Pure lookups on
// constant data; thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "http/http_server.h"

namespace spool::broker {

struct ConsoleAsset {
  std::string_view name;          // "index.html"
  std::string_view content_type;  // "text/html; charset=utf-8"
  std::string_view bytes;
};

// Every embedded file (generated).
std::span<const ConsoleAsset> console_assets();

// The file named exactly `name`, or nullptr.
const ConsoleAsset* find_console_asset(std::string_view name);

// The answer for a console path ("/" or "/console/..."): the file, or a 404
// JSON error for an unknown name. nullopt when `path` is not a console path.
std::optional<http::HttpResponse> console_response(std::string_view path);

}  // namespace spool::broker
