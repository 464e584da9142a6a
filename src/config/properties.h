// Java .properties parsing (the format of Kafka's server.properties).
//
// Follows java.util.Properties.load: '#'/'!' comment lines, key/value split
// at the first unescaped '=', ':' or whitespace, backslash line
// continuation, escapes (\t \n \r \f \uXXXX, \c -> c). Keys keep their order;
// a later duplicate wins when the caller applies them. Values are trimmed
// (Kafka trims every typed value). Pure functions, thread-safe; the only
// failures are a malformed \u escape or an unreadable file.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace spool::config {

using PropertyList = std::vector<std::pair<std::string, std::string>>;

Result<PropertyList> parse_properties(std::string_view text);
Result<PropertyList> load_properties_file(const std::string& path);

}  // namespace spool::config
