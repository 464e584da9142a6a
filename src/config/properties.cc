#include "config/properties.h"

#include <fstream>
#include <sstream>

#include "config/config_def.h"

namespace spool::config {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\f'; }

void append_utf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Splits text into logical lines: comment/blank lines dropped, continuation
// lines joined (their leading whitespace dropped), escapes left in place.
std::vector<std::pair<std::string, int>> logical_lines(std::string_view text) {
  std::vector<std::pair<std::string, int>> out;
  size_t pos = 0;
  int line_no = 0;
  std::string current;
  bool continuing = false;
  int start_line = 0;
  while (pos < text.size()) {
    size_t end = text.find_first_of("\r\n", pos);
    std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (end == std::string_view::npos) {
      pos = text.size();
    } else {
      pos = end + ((text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ? 2 : 1);
    }
    ++line_no;
    size_t first = 0;
    while (first < line.size() && is_ws(line[first])) ++first;
    line = line.substr(first);
    if (!continuing) {
      if (line.empty() || line[0] == '#' || line[0] == '!') continue;
      start_line = line_no;
    }
    // An odd run of trailing backslashes means the line continues.
    size_t backslashes = 0;
    while (backslashes < line.size() && line[line.size() - 1 - backslashes] == '\\') ++backslashes;
    if (backslashes % 2 == 1) {
      current.append(line.substr(0, line.size() - 1));
      continuing = true;
      continue;
    }
    current.append(line);
    out.emplace_back(std::move(current), start_line);
    current.clear();
    continuing = false;
  }
  if (continuing) out.emplace_back(std::move(current), start_line);
  return out;
}

Result<std::string> unescape(std::string_view s, int line_no) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 >= s.size()) {
      if (c != '\\') out.push_back(c);
      continue;
    }
    char e = s[++i];
    switch (e) {
      case 't': out.push_back('\t'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 'f': out.push_back('\f'); break;
      case 'u': {
        if (i + 4 >= s.size()) {
          return Status::error("line " + std::to_string(line_no) + ": malformed \\uXXXX escape");
        }
        uint32_t cp = 0;
        for (int k = 1; k <= 4; ++k) {
          char h = s[i + k];
          cp <<= 4;
          if (h >= '0' && h <= '9') cp |= static_cast<uint32_t>(h - '0');
          else if (h >= 'a' && h <= 'f') cp |= static_cast<uint32_t>(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F') cp |= static_cast<uint32_t>(h - 'A' + 10);
          else return Status::error("line " + std::to_string(line_no) + ": malformed \\uXXXX escape");
        }
        i += 4;
        append_utf8(&out, cp);
        break;
      }
      default: out.push_back(e); break;
    }
  }
  return out;
}

}  // namespace

Result<PropertyList> parse_properties(std::string_view text) {
  PropertyList out;
  for (auto& [line, line_no] : logical_lines(text)) {
    size_t i = 0;
    bool escaped = false;
    for (; i < line.size(); ++i) {
      char c = line[i];
      if (escaped) { escaped = false; continue; }
      if (c == '\\') { escaped = true; continue; }
      if (c == '=' || c == ':' || is_ws(c)) break;
    }
    std::string_view raw_key(line.data(), i);
    size_t v = i;
    while (v < line.size() && is_ws(line[v])) ++v;
    if (v < line.size() && (line[v] == '=' || line[v] == ':')) ++v;
    while (v < line.size() && is_ws(line[v])) ++v;
    auto key = unescape(raw_key, line_no);
    if (!key) return key.status();
    auto value = unescape(std::string_view(line).substr(v), line_no);
    if (!value) return value.status();
    out.emplace_back(std::string(trim(*key)), std::string(trim(*value)));
  }
  return out;
}

Result<PropertyList> load_properties_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error("cannot read config file '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::error("error reading config file '" + path + "'");
  auto parsed = parse_properties(ss.str());
  if (!parsed) return Status::error(path + ": " + parsed.status().message());
  return parsed;
}

}  // namespace spool::config
